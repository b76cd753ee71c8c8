// `cairn retain <file>` and `cairn recall "<query>"`, run directly on the embedded data directory.
import { compose } from '../compose.ts';
import type { Config } from '../config.ts';
import type { RecallRequest } from '../recall/types.ts';
import type { RetainItem } from '../retain/types.ts';
import { progressBar } from './progress.ts';

const BATCH = 100;

export async function retainCommand(config: Config, file: string, items: RetainItem[], opts: { bank: string }): Promise<void> {
  const { engine, shutdown } = await compose(config, { startWorker: false });
  try {
    if (!(await engine.store.getBank(opts.bank))) await engine.createBank({ id: opts.bank });
    const bar = progressBar(`retaining ${file}`);
    let facts = 0;
    bar.update(0, items.length);
    try {
      for (let i = 0; i < items.length; i += BATCH) {
        const { result } = await engine.retain(opts.bank, { items: items.slice(i, i + BATCH), documentMode: 'append' });
        facts += result?.facts ?? 0;
        bar.update(Math.min(i + BATCH, items.length), items.length);
      }
    } catch (e) {
      bar.stop(false);
      throw e;
    }
    bar.stop();
    process.stdout.write(`retained ${items.length} item(s) into ${opts.bank}: ${facts} new fact(s)\n`);
  } finally {
    await shutdown();
  }
}

export async function recallCommand(config: Config, bank: string, request: RecallRequest, opts: { json?: boolean }): Promise<void> {
  const { engine, shutdown } = await compose(config, { startWorker: false });
  try {
    const response = await engine.recall(bank, request);
    if (opts.json) process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
    else for (const [i, r] of response.results.entries()) process.stdout.write(`${i + 1}. [${r.kind} ${r.score.toFixed(3)}] ${r.text}\n`);
  } finally {
    await shutdown();
  }
}
