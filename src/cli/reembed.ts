// `cairn reembed <bank>`: rebuild a bank's vectors with the active embedder.
import { compose } from '../compose.ts';
import { checkBankId } from '../core/ids.ts';
import type { Config } from '../config.ts';
import { progressBar } from './progress.ts';

export async function reembedCommand(config: Config, bankId: string): Promise<void> {
  checkBankId(bankId);
  const { engine, shutdown } = await compose(config, { startWorker: false });
  const bar = progressBar('re-embedding');
  const n = await engine.reembed(bankId, (done, total) => bar.update(done, total));
  bar.stop();
  process.stdout.write(`re-embedded ${n} facts of ${bankId}\n`);
  await shutdown();
}
