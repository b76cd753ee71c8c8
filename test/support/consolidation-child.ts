// A `cairn worker` process for the crash test: runs the real worker entry (runWorker) on CAIRN_DATA_DIR and, in
// every batch, prints "claimed <n>" and then pauses CAIRN_TEST_APPLY_DELAY_MS between the claim and the apply,
// so the parent can kill it mid-batch with SIGKILL.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config/index.ts';
import { runWorker } from '../../src/cli/commands/worker.ts';

const delay = Number(process.env.CAIRN_TEST_APPLY_DELAY_MS ?? 0);
await runWorker(loadConfig(process.env), {
  beforeApply: async (_bankId, claim) => {
    process.stdout.write(`claimed ${claim.factIds.length}\n`);
    await sleep(delay);
  },
});
process.stdout.write('ready\n');
