// `cairn serve`, started in two steps for tests that restart the server many times: the process loads the code
// (most of its start-up time) at once, then waits for a line on stdin before it runs the real `serve` command. A
// test starts the next server while the current one still works, and the restart after a kill costs no load time.
// Run with tsx (the TypeScript sources), or on plain node with a directory of compiled sources as argument.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const compiled = process.argv[2];
const module = (path) => (compiled ? pathToFileURL(join(compiled, `${path}.js`)).href : new URL(`../../${path}.ts`, import.meta.url).href);
// What `cairn serve` runs (src/cli/main.ts parses the command line, then calls this), without the other commands' code.
const { serveCommand } = await import(module('src/cli/commands/serve'));
const { loadConfig } = await import(module('src/config/index'));
// The test holds stdin open while it lives: if it dies (a timeout kills it), this process ends too, loaded or serving.
process.stdin.on('end', () => process.exit(1));
process.stdout.write('loaded\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
await serveCommand(loadConfig(process.env));
