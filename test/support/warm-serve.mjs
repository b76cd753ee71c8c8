// `cairn serve`, started in two steps for tests that restart the server many times: the process loads the code
// (most of its start-up time) at once, then waits for a line on stdin before it runs the real `serve` command. A
// test starts the next server while the current one still works, and the restart after a kill costs no load time.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../../src/cli/main.ts');
process.stdout.write('loaded\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
await main(['serve']);
