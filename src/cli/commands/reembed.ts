// `cairn reembed <bank>`: rebuild a bank's vectors with the active embedder.
import { compose } from '../../compose.ts';
import { checkBankId } from '../../core/index.ts';
import type { Config } from '../../config/index.ts';
import { progressBar } from '../progress.ts';

export async function reembedCommand(config: Config, bankId: string): Promise<void> {
  checkBankId(bankId);
  const { engine, shutdown } = await compose(config, { startWorker: false });
  try {
    await engine.requireBank(bankId);
    const bar = progressBar('re-embedding');
    let n: number;
    try {
      n = await engine.reembed(bankId, (done, total) => bar.update(done, total));
    } catch (e) {
      bar.stop(false);
      throw e;
    }
    bar.stop();
    process.stdout.write(`re-embedded ${n} facts of ${bankId}\n`);
  } finally {
    await shutdown();
  }
}
