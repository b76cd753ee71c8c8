// The `cairn export`, `cairn import` and `cairn reconcile` commands, on whatever store the configuration selects.
//   cairn export <bank> [-o file.jsonl] [--embeddings]   archive a bank (stdout without -o)
//   cairn import <file> [--bank <id>]                    read an archive into a new bank (re-embeds as needed); under
//                                                        another id a copy with new record ids
//   cairn reconcile [--older-than <minutes>] [--dry-run] repair drift between Neo4j and Qdrant (server mode)
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { compose } from '../../compose.ts';
import { checkBankId } from '../../core/index.ts';
import { progressBar } from '../progress.ts';
import type { Config } from '../../config/index.ts';
import type { ReconcileReport } from '../../store/index.ts';

/** Where a command writes: its result (out) and its messages (err). */
export interface CommandIo {
  out: Writable;
  err: Writable;
}

export const processIo = (): CommandIo => ({ out: process.stdout, err: process.stderr });

export interface ExportCommandOptions {
  out?: string;
  embeddings?: boolean;
}

export async function exportCommand(
  config: Config,
  bankId: string,
  options: ExportCommandOptions = {},
  io: CommandIo = processIo(),
): Promise<void> {
  const { portability, shutdown } = await compose(config, { startWorker: false });
  try {
    const exportOptions = { embeddings: options.embeddings };
    const lines = options.out
      ? await portability.writeFile(bankId, options.out, exportOptions)
      : await portability.write(bankId, io.out, exportOptions);
    io.err.write(
      `exported bank ${bankId}: ${lines} lines${options.out ? ` to ${options.out}` : ''}${options.embeddings ? ' (with vectors)' : ''}\n`,
    );
  } finally {
    await shutdown();
  }
}

export interface ImportCommandOptions {
  bank?: string;
}

export async function importCommand(
  config: Config,
  file: string,
  options: ImportCommandOptions = {},
  io: CommandIo = processIo(),
): Promise<void> {
  if (options.bank !== undefined) checkBankId(options.bank);
  const { portability, shutdown } = await compose(config, { startWorker: false });
  const total = await countLines(file);
  const bar = progressBar(`importing ${file}`);
  try {
    const report = await portability.import(file, { bankId: options.bank, onRecord: (line) => bar.update(line, total) });
    bar.stop();
    const c = report.counts;
    io.out.write(
      `imported bank ${report.bankId}: ${c.documents} documents, ${c.chunks} chunks, ${c.facts} facts, ${c.observations} observations, ` +
        `${c.entities} entities, ${c.links} links, ${c.threads} threads (${c.messages} messages, ${c.memoryItems} memory items), ${c.tombstones} tombstones; ${report.reembedded ? `${report.reembedded} texts embedded with ${report.embedder}` : `vectors kept (${report.embedder})`}\n`,
    );
  } finally {
    await shutdown();
  }
}

/** Lines of a file, counted without holding it in memory (the import progress bar's total). */
async function countLines(file: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>)
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

export interface ReconcileCommandOptions {
  /** Stagings older than this many minutes are completed or rolled back (default 10). */
  olderThan?: string;
  dryRun?: boolean;
}

export function formatReconcileReport(r: ReconcileReport): string {
  const verb = r.dryRun ? 'would be' : '';
  return [
    `reconcile${r.dryRun ? ' (dry run: nothing changed)' : ''}:`,
    `  interrupted writes completed: ${r.stagingsCompleted}, rolled back: ${r.stagingsRolledBack}, other staged facts completed: ${r.stagedFactsCompleted}`,
    `  orphan Qdrant points ${verb ? `${verb} ` : ''}deleted: ${r.orphanPoints}`,
    `  facts without a vector: ${r.missingPoints} (re-embedded: ${r.reembedded}, flagged for 'cairn reembed': ${r.flagged})`,
    `  banks whose deletion was finished: ${r.sweptBanks.length ? r.sweptBanks.join(', ') : 'none'}`,
    `  keyword indexes of deleted banks ${verb ? `${verb} ` : ''}dropped: ${r.orphanKeywordIndexes.length ? r.orphanKeywordIndexes.join(', ') : 'none'}`,
  ].join('\n');
}

export async function reconcileCommand(config: Config, options: ReconcileCommandOptions = {}, io: CommandIo = processIo()): Promise<void> {
  const minutes = options.olderThan === undefined ? 10 : Number(options.olderThan);
  if (!Number.isFinite(minutes) || minutes < 0) throw new Error(`--older-than '${options.olderThan}' is not a number of minutes`);
  const { engine, reconcile, shutdown } = await compose(config, { startWorker: false });
  try {
    const report = await reconcile({ pendingOlderThanMs: minutes * 60_000, dryRun: options.dryRun });
    if (!report) {
      io.out.write(
        `nothing to reconcile: the ${engine.storeName} store keeps everything in one transactional database (reconcile is for server mode)\n`,
      );
      return;
    }
    io.out.write(`${formatReconcileReport(report)}\n`);
  } finally {
    await shutdown();
  }
}
