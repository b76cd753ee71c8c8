// Export of one bank from any store into the portable archive (format.ts): read page by page through the store
// and thread ports, so it works the same on the embedded store and in server mode, and streams (memory stays flat).
import { randomBytes } from 'node:crypto';
import { createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { nowIso } from '../core/index.ts';
import { type AuditReads, type BankStore, type RecallReads, requireBankIn } from '../store/index.ts';

/** What an export reads: the bank, and everything of it page by page. */
type ExportReads = BankStore & RecallReads & AuditReads;
import type { ThreadStore } from '../threads/index.ts';
import { emptyCounts, encodeVector, EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader, type ExportRecord } from './format.ts';

export interface ExportOptions {
  /** Where the bank's threads and their memory are kept. */
  threads: ThreadStore;
  /** Include the vectors (default false: the importing side re-embeds). */
  embeddings?: boolean;
  /** Records read per page (default 256). */
  pageSize?: number;
}

/** The archive's lines (without newlines): the header, then the records. */
export async function* exportBank(store: ExportReads, bankId: string, options: ExportOptions): AsyncGenerator<string> {
  const bank = await requireBankIn(store, bankId);
  const page = options.pageSize ?? 256;
  const withVectors = Boolean(options.embeddings && bank.embedder);
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    bank,
    embedder: bank.embedder,
    vectors: withVectors,
    exportedAt: nowIso(),
  };
  yield JSON.stringify(header);
  const counts = emptyCounts();
  const line = (r: ExportRecord): string => JSON.stringify(r);

  for (let offset = 0; ; offset += page) {
    const entities = await store.listEntities(bankId, page, offset);
    for (const entity of entities) yield line({ type: 'entity', entity });
    counts.entities += entities.length;
    if (entities.length < page) break;
  }

  for (let offset = 0; ; offset += page) {
    const documents = await store.listDocuments(bankId, page, offset);
    for (const document of documents) {
      yield line({ type: 'document', document });
      const chunks = await store.listChunks(bankId, document.id);
      for (const chunk of chunks) yield line({ type: 'chunk', chunk });
      counts.chunks += chunks.length;
    }
    counts.documents += documents.length;
    if (documents.length < page) break;
  }

  for (let offset = 0; ; offset += page) {
    const { facts } = await store.listFacts(bankId, { limit: page, offset, includeSuperseded: true });
    const vectors = withVectors
      ? await store.getVectors(
          bankId,
          facts.map((f) => f.id),
        )
      : new Map<string, Float32Array>();
    for (const fact of facts) {
      const v = vectors.get(fact.id);
      const vector = v ? encodeVector(v) : undefined;
      if (vector) counts.vectors++;
      if (fact.kind === 'observation') {
        const [evidence, history] = await Promise.all([store.evidenceOf(bankId, fact.id), store.historyOf(bankId, fact.id)]);
        yield line({ type: 'observation', observation: fact, evidence, history, ...(vector ? { vector } : {}) });
        counts.observations++;
      } else {
        yield line({ type: 'fact', fact, ...(vector ? { vector } : {}) });
        counts.facts++;
      }
    }
    if (facts.length < page) break;
  }

  for (let offset = 0; ; offset += page) {
    const links = await store.listLinks(bankId, page, offset);
    for (const l of links) yield line({ type: 'link', link: { from: l.from, to: l.to, type: l.type, weight: l.weight } });
    counts.links += links.length;
    if (links.length < page) break;
  }

  const { threads } = options;
  for (let offset = 0; ; offset += page) {
    const list = await threads.listThreads(bankId, { limit: page, offset });
    for (const thread of list) {
      yield line({ type: 'thread', thread });
      for (let after = 0; ; ) {
        const messages = await threads.exportMessages(bankId, thread.id, after, page);
        for (const message of messages) yield line({ type: 'message', message });
        counts.messages += messages.length;
        if (messages.length < page) break;
        after = messages[messages.length - 1].seq;
      }
    }
    counts.threads += list.length;
    if (list.length < page) break;
  }

  for (let offset = 0; ; offset += page) {
    const items = await threads.exportItems(bankId, page, offset);
    for (const item of items) yield line({ type: 'memory', item });
    counts.memoryItems += items.length;
    if (items.length < page) break;
  }

  for (const workingMemory of await threads.listWorkingMemory(bankId)) {
    yield line({ type: 'working-memory', workingMemory });
    counts.workingMemory++;
  }

  for (let offset = 0; ; offset += page) {
    const tombstones = await store.tombstones(bankId, page, offset);
    for (const tombstone of tombstones) yield line({ type: 'tombstone', tombstone });
    counts.tombstones += tombstones.length;
    if (tombstones.length < page) break;
  }

  yield line({ type: 'end', counts });
}

/** Writes the archive to a stream (a file, stdout), honouring back-pressure. Returns the number of lines. */
export async function writeExport(store: ExportReads, bankId: string, out: Writable, options: ExportOptions): Promise<number> {
  let lines = 0;
  for await (const l of exportBank(store, bankId, options)) {
    if (!out.write(`${l}\n`)) await once(out, 'drain');
    lines++;
  }
  return lines;
}

/** Writes the archive to a file. A regular file (or a new one) is written beside it and renamed over it once whole:
 * an export that fails (a deleted bank, a full disk) leaves an earlier archive of that name as it was. */
export async function exportBankToFile(store: ExportReads, bankId: string, file: string, options: ExportOptions): Promise<number> {
  const existing = statSync(file, { throwIfNoEntry: false });
  const whole = !existing || existing.isFile();
  const target = whole ? join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`) : file;
  const out = createWriteStream(target);
  try {
    const lines = await writeExport(store, bankId, out, options);
    out.end();
    await once(out, 'finish');
    if (whole) renameSync(target, file);
    return lines;
  } catch (e) {
    // Writes still queued fail with the stream (the export has failed already): heard here, not as a crash.
    out.on('error', () => undefined);
    if (!out.closed) {
      const closed = new Promise<void>((settle) => out.once('close', () => settle()));
      out.destroy();
      await closed;
    }
    if (whole) rmSync(target, { force: true });
    throw e;
  }
}
