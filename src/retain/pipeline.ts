// The retain pipeline: items -> documents -> changed chunks -> extracted facts -> resolved entities ->
// vectors -> links, written atomically per document batch. Unchanged documents and chunks are skipped.
import pLimit, { type LimitFunction } from 'p-limit';
import { contentHash, derivedId, newId } from '../core/ids.ts';
import { nowIso } from '../core/time.ts';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Bank, Chunk, DocumentRecord, Fact, FactLink } from '../core/types.ts';
import type { Embedder } from '../embed/ports.ts';
import type { MemoryStore } from '../store/ports.ts';
import { chunkText } from './chunking.ts';
import { EntityResolver } from './entities.ts';
import type { ExtractedFact, Extractor } from './extractor.ts';
import { semanticLinks } from './links.ts';
import { retainModeOf } from './retain-mode.ts';
import type { Progress, RetainItem, RetainRequest, RetainResult } from './types.ts';

export interface RetainDeps {
  store: MemoryStore;
  extractor: Extractor;
  embedder: Embedder;
}

/** Chunks written per transaction for very long documents. */
const WRITE_BATCH = 64;

interface PlannedDocument {
  id: string;
  items: Array<{ item: RetainItem; itemId: string; timestamp: string }>;
}

const locks = new Map<string, Promise<unknown>>();

/** Retains for one bank run one at a time (entity resolution reads what the previous retain wrote). */
async function withBankLock<T>(bankId: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(bankId) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => undefined);
  locks.set(bankId, tail);
  try {
    return await run;
  } finally {
    if (locks.get(bankId) === tail) locks.delete(bankId);
  }
}

function planDocuments(bankId: string, items: RetainItem[], now: string): PlannedDocument[] {
  const docs = new Map<string, PlannedDocument>();
  for (const item of items) {
    const timestamp = item.timestamp ?? now;
    const itemHash = contentHash(item.content, item.speaker, item.timestamp, item.context, JSON.stringify(item.metadata ?? {}), JSON.stringify(item.tags ?? []));
    const docId = item.documentId ?? derivedId('doc', bankId, itemHash);
    const doc = docs.get(docId) ?? { id: docId, items: [] };
    doc.items.push({ item, itemId: derivedId('itm', bankId, docId, itemHash), timestamp });
    docs.set(docId, doc);
  }
  return [...docs.values()];
}

function chunksOf(bankId: string, doc: PlannedDocument, firstIndex: number): Chunk[] {
  const chunks: Chunk[] = [];
  for (const { item, itemId, timestamp } of doc.items) {
    const pieces = chunkText(item.content);
    pieces.forEach((piece, i) => {
      const hash = contentHash(piece.text, item.speaker, item.timestamp, item.context, JSON.stringify(item.metadata ?? {}), JSON.stringify(item.tags ?? []), item.role);
      chunks.push({
        id: derivedId('chk', bankId, doc.id, itemId, String(i), hash),
        bankId,
        documentId: doc.id,
        index: firstIndex + chunks.length,
        itemId,
        text: piece.text,
        contentHash: hash,
        speaker: item.speaker ?? null,
        timestamp,
        context: item.context ?? null,
        metadata: item.metadata ?? {},
        tags: item.tags ?? [],
      });
    });
  }
  return chunks;
}

const isAgent = (item: RetainItem | undefined): boolean => item?.role === 'assistant' || item?.role === 'agent';

export async function retain(deps: RetainDeps, bank: Bank, request: RetainRequest, progress?: Progress): Promise<RetainResult> {
  return withBankLock(bank.id, () => retainLocked(deps, bank, request, progress));
}

/** What one document of a request will write: its record, the chunks to add and the chunk ids to remove. */
interface DocumentWrite {
  doc: PlannedDocument;
  stored: DocumentRecord | null;
  document: DocumentRecord;
  fresh: Chunk[];
  removed: string[];
  unchanged: boolean;
}

async function planWrite(store: MemoryStore, bankId: string, doc: PlannedDocument, append: boolean, now: string): Promise<DocumentWrite> {
  const existing = await store.listChunks(bankId, doc.id);
  const stored = await store.getDocument(bankId, doc.id);
  const planned = chunksOf(bankId, doc, append ? existing.length : 0);
  const all = append ? [...existing, ...planned.filter((c) => !existing.some((e) => e.id === c.id))] : planned;
  const docHash = contentHash(...all.map((c) => c.id));
  const existingIds = new Set(existing.map((c) => c.id));
  const plannedIds = new Set(all.map((c) => c.id));
  const document: DocumentRecord = {
    id: doc.id,
    bankId,
    contentHash: docHash,
    metadata: doc.items[0]?.item.metadata ?? {},
    tags: doc.items[0]?.item.tags ?? [],
    createdAt: stored?.createdAt ?? now,
    updatedAt: now,
  };
  return {
    doc,
    stored,
    document,
    fresh: all.filter((c) => !existingIds.has(c.id)),
    removed: append ? [] : existing.filter((c) => !plannedIds.has(c.id)).map((c) => c.id),
    unchanged: stored !== null && stored.contentHash === docHash,
  };
}

async function retainLocked(deps: RetainDeps, bank: Bank, request: RetainRequest, progress?: Progress): Promise<RetainResult> {
  const { store } = deps;
  const now = nowIso();
  const result: RetainResult = { documents: 0, documentsUnchanged: 0, chunksProcessed: 0, chunksRemoved: 0, facts: 0, factIds: [], entities: 0 };
  const append = request.documentMode === 'append';
  const plans: DocumentWrite[] = [];
  for (const doc of planDocuments(bank.id, request.items, now)) plans.push(await planWrite(store, bank.id, doc, append, now));
  // Every new chunk is handed to the extractor now (as many at once as it takes), so later chunks are extracted
  // while earlier ones are embedded and written; writes still happen in order, one transaction per batch.
  const extractions = new Extractions(deps.extractor, bank);
  for (const plan of plans) if (!plan.unchanged) extractions.start(plan.fresh, plan.doc);
  let itemsDone = 0;
  try {
    for (const plan of plans) {
      const { doc, stored, document, fresh, removed } = plan;
      result.documents++;
      if (plan.unchanged) {
        result.documentsUnchanged++;
        itemsDone += doc.items.length;
        progress?.(itemsDone, request.items.length);
        continue;
      }
      for (let i = 0; i < Math.max(fresh.length, 1); i += WRITE_BATCH) {
        const batch = fresh.slice(i, i + WRITE_BATCH);
        const last = i + WRITE_BATCH >= fresh.length;
        // Until the last batch is written the document keeps its old hash, so a crash mid-way re-processes the rest.
        const batchDoc = last ? document : { ...document, contentHash: stored?.contentHash ?? 'incomplete' };
        const extracted = await extractions.of(batch);
        const written = await writeChunks(deps, bank, batchDoc, extracted, i === 0 ? removed : []);
        result.facts += written.factIds.length;
        result.factIds.push(...written.factIds);
        result.entities += written.entities;
      }
      result.chunksProcessed += fresh.length;
      result.chunksRemoved += removed.length;
      itemsDone += doc.items.length;
      progress?.(itemsDone, request.items.length);
    }
  } finally {
    extractions.cancel();
  }
  return result;
}

/** The extraction of each new chunk of a request, started ahead of the writes, at most `concurrency` at a time. */
class Extractions {
  private readonly pending = new Map<Chunk, Promise<ExtractedFact[]>>();
  private readonly limit: LimitFunction;

  constructor(
    private readonly extractor: Extractor,
    private readonly bank: Bank,
  ) {
    this.limit = pLimit(Math.max(1, extractor.concurrency ?? 1));
  }

  start(chunks: Chunk[], doc: PlannedDocument): void {
    const items = new Map(doc.items.map((i) => [i.itemId, i.item]));
    const mode = retainModeOf(this.bank.config);
    const mission = typeof this.bank.config.retainMission === 'string' ? this.bank.config.retainMission : undefined;
    for (const chunk of chunks) {
      const task = this.limit(() =>
        this.extractor.extract({
          bankId: this.bank.id,
          text: chunk.text,
          speaker: chunk.speaker,
          fromAgent: isAgent(items.get(chunk.itemId)),
          timestamp: chunk.timestamp ?? nowIso(),
          context: chunk.context,
          mode,
          mission,
        }),
      );
      task.catch(() => undefined); // a failure surfaces when its batch is written; until then it must not go unhandled
      this.pending.set(chunk, task);
    }
  }

  async of(chunks: Chunk[]): Promise<Array<{ chunk: Chunk; facts: ExtractedFact[] }>> {
    return Promise.all(chunks.map(async (chunk) => ({ chunk, facts: await this.pending.get(chunk)! })));
  }

  /** Drops extractions not started yet (after a failure, nothing more will be written). */
  cancel(): void {
    this.limit.clearQueue();
  }
}

async function writeChunks(
  deps: RetainDeps,
  bank: Bank,
  document: DocumentRecord,
  extracted: Array<{ chunk: Chunk; facts: ExtractedFact[] }>,
  removeChunkIds: string[],
): Promise<{ factIds: string[]; entities: number }> {
  const { store, embedder } = deps;
  const chunks = extracted.map((e) => e.chunk);
  const resolver = new EntityResolver(store, bank.id);
  await resolver.preload(extracted.flatMap((e) => e.facts.flatMap((f) => f.entities)));
  const now = nowIso();
  const facts: Fact[] = [];
  const links: FactLink[] = [];
  let previous: Fact | null = null;
  for (const { chunk, facts: found } of extracted) {
    const ids: string[] = [];
    for (const x of found) {
      const at = chunk.timestamp ?? now;
      const entityIds = [...new Set(x.entities.map((m) => resolver.resolve(m, at)).filter((id): id is string => id !== null))];
      const fact: Fact = {
        id: newId('fct'),
        bankId: bank.id,
        kind: x.kind,
        text: x.text,
        occurredStart: x.occurredStart,
        occurredEnd: x.occurredEnd,
        mentionedAt: at,
        entities: entityIds,
        source: { documentId: document.id, chunkId: chunk.id, itemId: chunk.itemId, start: x.start, end: x.end },
        speaker: chunk.speaker,
        metadata: chunk.metadata,
        tags: chunk.tags,
        status: 'active',
        validFrom: x.occurredStart ?? at,
        validTo: null,
        supersededBy: null,
        supersededAt: null,
        consolidatedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      // Temporal links: each fact to the one told just before it in the document.
      if (previous) links.push({ bankId: bank.id, from: previous.id, to: fact.id, type: 'temporal', weight: previous.source?.chunkId === chunk.id ? 1 : 0.8 });
      for (const c of x.causedBy) if (ids[c]) links.push({ bankId: bank.id, from: ids[c], to: fact.id, type: 'causal', weight: 1 });
      ids.push(fact.id);
      facts.push(fact);
      previous = fact;
    }
  }
  const vectors = facts.length ? await embedder.embed(facts.map((f) => f.text)) : [];
  const records = facts.map((f, i) => ({ id: f.id, vector: vectors[i] }));
  links.push(...(await semanticLinks(store, bank.id, records)));
  await store.writeItem({
    bankId: bank.id,
    document,
    chunks,
    removeChunkIds,
    facts,
    entities: [...resolver.touched.values()],
    links,
    vectors: records,
    embedder: embedder.id,
  });
  return { factIds: facts.map((f) => f.id), entities: resolver.touched.size };
}
