// `cairn retain <file>` and `cairn recall "<query>"`, run directly on the configured store.
import { compose } from '../../compose.ts';
import type { Config } from '../../config/index.ts';
import { checkBankId } from '../../core/index.ts';
import { processIo, type CommandIo } from './portability.ts';
import type { RecallRequest } from '../../recall/index.ts';
import type { RetainItem } from '../../retain/index.ts';
import { readItems } from '../items.ts';
import { progressBar } from '../progress.ts';

/**
 * Retains a file's items in one request (append mode, so documents already in the bank keep what they hold): one
 * request, so an item repeated in the file is told apart from a re-run of the file, which adds nothing. `items`
 * are the file's, read (and checked) before any store is opened; read here when not given.
 */
export async function retainCommand(
  config: Config,
  file: string,
  opts: { bank: string; document?: string },
  io: CommandIo = processIo(),
  items: RetainItem[] = readItems(file, opts.document),
): Promise<void> {
  checkBankId(opts.bank);
  const { engine, shutdown } = await compose(config, { startWorker: false });
  try {
    if (!(await engine.findBank(opts.bank))) await engine.createBank({ id: opts.bank });
    // Counted in chunks of new text: a file of one long item moves as its chunks are written.
    const bar = progressBar(`retaining ${file} (chunks)`);
    try {
      const { result } = await engine.retain(
        opts.bank,
        { items, documentMode: 'append' },
        { progress: (done, total, chunks) => (chunks ? bar.update(chunks.done, chunks.total) : bar.update(done, total)) },
      );
      bar.stop();
      io.out.write(`retained ${items.length} item(s) into ${opts.bank}: ${result?.facts ?? 0} new fact(s)\n`);
    } catch (e) {
      bar.stop(false);
      throw e;
    }
  } finally {
    await shutdown();
  }
}

export async function recallCommand(config: Config, bank: string, request: RecallRequest, opts: { json?: boolean }): Promise<void> {
  checkBankId(bank);
  const { engine, shutdown } = await compose(config, { startWorker: false });
  try {
    const response = await engine.recall(bank, request);
    if (opts.json) process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    else if (response.passages) {
      for (const [i, p] of response.passages.entries())
        process.stdout.write(`${i + 1}. [${p.speaker ?? 'passage'} ${p.score.toFixed(3)}, ${p.results.length} result(s)]\n${p.text}\n\n`);
    } else for (const [i, r] of response.results.entries()) process.stdout.write(`${i + 1}. [${r.kind} ${r.score.toFixed(3)}] ${r.text}\n`);
  } finally {
    await shutdown();
  }
}
