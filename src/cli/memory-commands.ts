// `cairn retain <file>` and `cairn recall "<query>"`, run directly on the configured store.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { RetainItemSchema } from '../api/schemas.ts';
import { describeIssues } from '../api/errors.ts';
import { compose } from '../compose.ts';
import type { Config } from '../config.ts';
import type { RetainItem } from '../retain/types.ts';
import { checkBankId } from '../core/ids.ts';
import { processIo, type CommandIo } from '../portability/cli.ts';
import { progressBar } from './progress.ts';

/** Items from a file: a JSON array or {items}, JSONL (one item per line), or plain text (one item). */
export function readItems(file: string, documentId?: string): RetainItem[] {
  const text = readFileSync(file, 'utf8');
  const ext = extname(file).toLowerCase();
  let raw: unknown[];
  const parse = (json: string, where: string): unknown => {
    try {
      return JSON.parse(json) as unknown;
    } catch (e) {
      throw new Error(`${where} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  if (ext === '.json') {
    const parsed = parse(text, file);
    const items = Array.isArray(parsed) ? parsed : (parsed as { items?: unknown } | null)?.items;
    if (!Array.isArray(items)) throw new Error(`${file} holds no items: expected a JSON array of items or {"items": [...]}`);
    raw = items;
  } else if (ext === '.jsonl' || ext === '.ndjson') {
    raw = text.split('\n').flatMap((l, i) => (l.trim() ? [parse(l, `line ${i + 1} of ${file}`)] : []));
  } else {
    return [{ content: text, documentId: documentId ?? file }];
  }
  return raw.map((r, i) => {
    const parsed = RetainItemSchema.safeParse(r);
    if (!parsed.success) throw new Error(`item ${i} of ${file}: ${describeIssues(parsed.error.issues)}`);
    return parsed.data;
  });
}

/**
 * Retains a file's items in one request (append mode, so documents already in the bank keep what they hold): one
 * request, so an item repeated in the file is told apart from a re-run of the file, which adds nothing.
 */
export async function retainCommand(config: Config, file: string, opts: { bank: string; document?: string }, io: CommandIo = processIo()): Promise<void> {
  checkBankId(opts.bank);
  const items = readItems(file, opts.document);
  const { engine, shutdown } = await compose(config, { startWorker: false });
  try {
    if (!(await engine.store.getBank(opts.bank))) await engine.createBank({ id: opts.bank });
    const bar = progressBar(`retaining ${file}`);
    bar.update(0, items.length);
    const { result } = await engine.retain(opts.bank, { items, documentMode: 'append' }, { progress: (done, total) => bar.update(done, total) });
    bar.stop();
    io.out.write(`retained ${items.length} item(s) into ${opts.bank}: ${result?.facts ?? 0} new fact(s)\n`);
  } finally {
    await shutdown();
  }
}

export async function recallCommand(
  config: Config,
  query: string,
  opts: { bank: string; limit: string; queryTime?: string; json?: boolean },
): Promise<void> {
  checkBankId(opts.bank);
  const { engine, shutdown } = await compose(config, { startWorker: false });
  const response = await engine.recall(opts.bank, { query, limit: Number(opts.limit), queryTime: opts.queryTime });
  if (opts.json) process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
  else for (const [i, r] of response.results.entries()) process.stdout.write(`${i + 1}. [${r.kind} ${r.score.toFixed(3)}] ${r.text}\n`);
  await shutdown();
}
