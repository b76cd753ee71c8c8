#!/usr/bin/env node
// Entry point of the `cairn` command: loads the TypeScript sources through tsx and runs the CLI.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
