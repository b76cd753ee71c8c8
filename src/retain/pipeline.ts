// The retain pipeline: items -> documents -> changed chunks -> extracted facts -> resolved entities ->
// vectors -> links, written atomically per document batch. Unchanged documents and chunks are skipped.
import { setImmediate as nextTurn } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import { contentHash, derivedId, newId } from '../core/ids.ts';
import { nowIso } from '../core/time.ts';
import type { Bank, Chunk, DocumentRecord, Fact, FactLink } from '../core/types.ts';
import type { Embedder } from '../embed/ports.ts';
import type { ItemWrite, MemoryStore } from '../store/ports.ts';
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

/**
 * Each item's addressee: the nearest other speaker before it in the request, else the nearest after it (in a
 * two-way conversation, the one spoken to).
 */
function addresseesOf(docs: PlannedDocument[], items: RetainItem[]): Map<string, string> {
  const out = new Map<string, string>();
  const ids = new Map<RetainItem, string>();
  for (const d of docs) for (const p of d.items) ids.set(p.item, p.itemId);
  const speakers = items.map((i) => i.speaker ?? null);
  items.forEach((item, n) => {
    const me = speakers[n];
    const id = ids.get(item);
    if (!me || !id) return;
    let found: string | null = null;
    for (let k = n - 1; k >= 0 && !found; k--) if (speakers[k] && speakers[k] !== me) found = speakers[k];
    for (let k = n + 1; k < speakers.length && !found; k++) if (speakers[k] && speakers[k] !== me) found = speakers[k];
    if (found) out.set(id, found);
  });
  return out;
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
  /** Kept chunks told just before the first new one, nearest first (their last fact starts the temporal chain). */
  before: string[];
}

/** How many chunks back a new chunk looks for the fact told before it (chunks such as "ok!" may have none). */
const LOOK_BACK_CHUNKS = 3;

async function planWrite(store: MemoryStore, bankId: string, doc: PlannedDocument, append: boolean, now: string): Promise<DocumentWrite> {
  const existing = await store.listChunks(bankId, doc.id);
  const stored = await store.getDocument(bankId, doc.id);
  const existingIds = new Set(existing.map((c) => c.id));
  const planned = chunksOf(bankId, doc, append ? existing.length : 0);
  const all = append ? [...existing, ...planned.filter((c) => !existingIds.has(c.id))] : planned;
  const docHash = contentHash(...all.map((c) => c.id));
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
  const fresh = all.filter((c) => !existingIds.has(c.id));
  return {
    doc,
    stored,
    document,
    fresh,
    removed: append ? [] : existing.filter((c) => !plannedIds.has(c.id)).map((c) => c.id),
    unchanged: stored !== null && stored.contentHash === docHash,
    before: chunksBefore(existing, fresh[0], plannedIds),
  };
}

/** The stored chunks kept by this write that come just before `first`, nearest first. */
function chunksBefore(existing: Chunk[], first: Chunk | undefined, kept: Set<string>): string[] {
  if (!first) return [];
  return existing
    .filter((c) => c.index < first.index && kept.has(c.id))
    .sort((a, b) => b.index - a.index)
    .slice(0, LOOK_BACK_CHUNKS)
    .map((c) => c.id);
}

/** The last fact told in the nearest of these chunks that has one (fact ids sort in the order they were told). */
async function lastFactOf(store: MemoryStore, bankId: string, chunkIds: string[]): Promise<string | null> {
  if (chunkIds.length === 0) return null;
  const facts = await store.factIdsOfChunks(bankId, chunkIds);
  for (const chunkId of chunkIds) {
    const ids = facts.filter((f) => f.chunkId === chunkId).map((f) => f.factId).sort();
    if (ids.length) return ids[ids.length - 1];
  }
  return null;
}

async function retainLocked(deps: RetainDeps, bank: Bank, request: RetainRequest, progress?: Progress): Promise<RetainResult> {
  const { store } = deps;
  const now = nowIso();
  const result: RetainResult = { documents: 0, documentsUnchanged: 0, chunksProcessed: 0, chunksRemoved: 0, facts: 0, factIds: [], entities: 0 };
  const append = request.documentMode === 'append';
  const plans: DocumentWrite[] = [];
  const docs = planDocuments(bank.id, request.items, now);
  for (const doc of docs) plans.push(await planWrite(store, bank.id, doc, append, now));
  // Every new chunk is handed to the extractor now (as many at once as it takes), so later chunks are extracted
  // while earlier ones are embedded and written; writes still happen in order, one transaction per batch.
  const extractions = new Extractions(deps.extractor, bank, addresseesOf(docs, request.items));
  for (const plan of plans) if (!plan.unchanged) extractions.start(plan.fresh, plan.doc);
  let itemsDone = 0;
  const count = (written: { factIds: string[]; entities: number }): void => {
    result.facts += written.factIds.length;
    result.factIds.push(...written.factIds);
    result.entities += written.entities;
  };
  const done = (plan: DocumentWrite): void => {
    result.documents++;
    if (plan.unchanged) result.documentsUnchanged++;
    else {
      result.chunksProcessed += plan.fresh.length;
      result.chunksRemoved += plan.removed.length;
    }
    itemsDone += plan.doc.items.length;
    progress?.(itemsDone, request.items.length);
  };
  try {
    for (const group of writeGroups(plans)) {
      // The store's calls are synchronous underneath: without a turn of the event loop between writes, a long
      // retain would hold every other request of the process (recall, status, progress polls) until it ends.
      await nextTurn();
      if (group.length > 1 || isSmallNew(group[0])) {
        // Small new documents share a transaction (each still whole or absent after a crash).
        const parts = await Promise.all(
          group.map(async (plan) => ({
            document: plan.document,
            extracted: await extractions.of(plan.fresh),
            removeChunkIds: [],
            previousFactId: await lastFactOf(store, bank.id, plan.before),
          })),
        );
        count(await writeChunks(deps, bank, parts));
        group.forEach(done);
        continue;
      }
      const plan = group[0];
      const { stored, document, fresh, removed } = plan;
      if (!plan.unchanged) {
        let previousFactId = await lastFactOf(store, bank.id, plan.before);
        for (let i = 0; i < Math.max(fresh.length, 1); i += WRITE_BATCH) {
          const batch = fresh.slice(i, i + WRITE_BATCH);
          const last = i + WRITE_BATCH >= fresh.length;
          // Until the last batch is written the document keeps its old hash, so a crash mid-way re-processes the rest.
          const batchDoc = last ? document : { ...document, contentHash: stored?.contentHash ?? 'incomplete' };
          const written = await writeChunks(deps, bank, [{ document: batchDoc, extracted: await extractions.of(batch), removeChunkIds: i === 0 ? removed : [], previousFactId }]);
          count(written);
          // The next batch's chain goes on from this one's last fact.
          previousFactId = written.factIds.at(-1) ?? previousFactId;
        }
      }
      done(plan);
    }
  } finally {
    extractions.cancel();
  }
  return result;
}

/** A document with new chunks, at most WRITE_BATCH of them, and nothing to remove: it may share a transaction. */
const isSmallNew = (plan: DocumentWrite): boolean => !plan.unchanged && plan.removed.length === 0 && plan.fresh.length <= WRITE_BATCH;

/** Consecutive small new documents of at most WRITE_BATCH chunks in all form one group; any other document
 * (unchanged, changed, or long) is a group of its own. */
function writeGroups(plans: DocumentWrite[]): DocumentWrite[][] {
  const groups: DocumentWrite[][] = [];
  let open: DocumentWrite[] = [];
  let size = 0;
  for (const plan of plans) {
    const small = isSmallNew(plan);
    if (!small || size + plan.fresh.length > WRITE_BATCH) {
      if (open.length) groups.push(open);
      open = [];
      size = 0;
    }
    if (!small) {
      groups.push([plan]);
      continue;
    }
    open.push(plan);
    size += plan.fresh.length;
  }
  if (open.length) groups.push(open);
  return groups;
}

/** The extraction of each new chunk of a request, started ahead of the writes, at most `concurrency` at a time. */
class Extractions {
  private readonly pending = new Map<Chunk, Promise<ExtractedFact[]>>();
  private readonly limit: LimitFunction;

  constructor(
    private readonly extractor: Extractor,
    private readonly bank: Bank,
    private readonly addressees: ReadonlyMap<string, string> = new Map(),
  ) {
    this.limit = pLimit(Math.max(1, extractor.concurrency ?? 1));
  }

  start(chunks: Chunk[], doc: PlannedDocument): void {
    const items = new Map(doc.items.map((i) => [i.itemId, i.item]));
    const mode = retainModeOf(this.bank.config);
    const mission = typeof this.bank.config.retainMission === 'string' ? this.bank.config.retainMission : undefined;
    for (const chunk of chunks) {
      const task = this.limit(async () => {
        // The offline extractor holds the thread for milliseconds: between chunks, let requests and this retain's
        // own writes (of batches already extracted) run.
        await nextTurn();
        return this.extractor.extract({
          bankId: this.bank.id,
          text: chunk.text,
          speaker: chunk.speaker,
          addressee: this.addressees.get(chunk.itemId) ?? null,
          fromAgent: isAgent(items.get(chunk.itemId)),
          timestamp: chunk.timestamp ?? nowIso(),
          context: chunk.context,
          mode,
          mission,
        });
      });
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

/** One document's part of a write: its record, its extracted new chunks, the chunk ids it drops. */
interface WritePart {
  document: DocumentRecord;
  extracted: Array<{ chunk: Chunk; facts: ExtractedFact[] }>;
  removeChunkIds: string[];
  /** The stored fact told just before this part's first new chunk, if any: its temporal chain starts there. */
  previousFactId?: string | null;
}

/** Resolves, embeds and links the facts of one or more documents' chunks and writes them in one transaction. */
async function writeChunks(deps: RetainDeps, bank: Bank, parts: WritePart[]): Promise<{ factIds: string[]; entities: number }> {
  const { store, embedder } = deps;
  const resolver = new EntityResolver(store, bank.id);
  await resolver.preload(parts.flatMap((p) => p.extracted.flatMap((e) => e.facts.flatMap((f) => f.entities))));
  const now = nowIso();
  const facts: Fact[] = [];
  const links: FactLink[] = [];
  const factsOfPart: Fact[][] = [];
  for (const { document, extracted, previousFactId } of parts) {
    const own: Fact[] = [];
    let previous: { id: string; chunkId: string | null } | null = previousFactId ? { id: previousFactId, chunkId: null } : null;
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
          metadata: x.addressee ? { ...chunk.metadata, addressee: x.addressee } : chunk.metadata,
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
        if (previous) links.push({ bankId: bank.id, from: previous.id, to: fact.id, type: 'temporal', weight: previous.chunkId === chunk.id ? 1 : 0.8 });
        for (const c of x.causedBy) if (ids[c]) links.push({ bankId: bank.id, from: ids[c], to: fact.id, type: 'causal', weight: 1 });
        ids.push(fact.id);
        own.push(fact);
        previous = { id: fact.id, chunkId: chunk.id };
      }
    }
    facts.push(...own);
    factsOfPart.push(own);
  }
  const vectors = facts.length ? await embedder.embed(facts.map((f) => f.text)) : [];
  const vectorOf = new Map(facts.map((f, i) => [f.id, vectors[i]]));
  links.push(...(await semanticLinks(store, bank.id, facts.map((f) => ({ id: f.id, vector: vectorOf.get(f.id)! })))));
  // Entities go with the first document (before any fact mentions them), links with the last (after both ends).
  const writes: ItemWrite[] = parts.map((part, i) => ({
    bankId: bank.id,
    document: part.document,
    chunks: part.extracted.map((e) => e.chunk),
    removeChunkIds: part.removeChunkIds,
    facts: factsOfPart[i],
    entities: i === 0 ? [...resolver.touched.values()] : [],
    links: i === parts.length - 1 ? links : [],
    vectors: factsOfPart[i].map((f) => ({ id: f.id, vector: vectorOf.get(f.id)! })),
    embedder: embedder.id,
  }));
  if (writes.length === 1) await store.writeItem(writes[0]);
  else if (store.writeItems) await store.writeItems(writes);
  else for (const w of writes) await store.writeItem(w);
  return { factIds: facts.map((f) => f.id), entities: resolver.touched.size };
}
