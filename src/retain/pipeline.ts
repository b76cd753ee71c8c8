// The retain pipeline: items -> documents -> changed chunks -> extracted facts -> resolved entities ->
// vectors -> links, written atomically per document batch. Unchanged documents and chunks are skipped.
import { setImmediate as nextTurn } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import {
  contentHash,
  derivedId,
  newId,
  nowIso,
  type Bank,
  type Chunk,
  type ChunkProgress,
  type DocumentRecord,
  type Fact,
  type FactLink,
  type Operation,
} from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';
import type { ItemWrite, MemoryWrites, RecallReads } from '../store/index.ts';
import { textPieces } from './chunking.ts';
import { factContext, passageNames } from './context.ts';
import { EntityResolver } from './entities.ts';
import type { ExtractedFact, Extractor } from './extractor.ts';
import type { BankWriteLeases } from './lease.ts';
import { RecentFacts, semanticLinks } from './links.ts';
import { retainModeOf } from './retain-mode.ts';
import type { Progress, RetainItem, RetainRequest, RetainResult } from './types.ts';
import { stanceOf } from '../text/index.ts';
import { traced } from '../telemetry/index.ts';

export interface RetainDeps {
  /** Writes the items; reads what is stored to plan them and to link their facts. */
  store: MemoryWrites & RecallReads;
  extractor: Extractor;
  embedder: Embedder;
  /** One writer per bank at a time, across processes. */
  leases: BankWriteLeases;
}

/** Chunks written per transaction for very long documents: a batch's embedding, linking and write run without a turn
 * of the event loop between them, about 60 ms at 16 chunks (200 ms and more at 64). */
const WRITE_BATCH = 16;
/** Facts that end a batch early: text dense in short facts (lists, a log repeated for pages) gives 800 and more from
 * 16 chunks, half a second and more without a turn. At 128 another client's recall during a 1 MB retain has a p95
 * about 100 ms (180-200 ms at 256), and the retain takes no longer. */
export const WRITE_BATCH_FACTS = 128;
/** Longest stretch of synchronous work the chunking of a request runs before it lets the event loop turn. */
const SLICE_MS = 20;

interface PlannedDocument {
  id: string;
  items: Array<{ item: RetainItem; itemId: string; timestamp: string }>;
}

/**
 * Items grouped into documents, in order. Ids derive from content so that retaining the same request again changes
 * nothing. Identical items in one request (same document, content, speaker, timestamp, context, metadata, tags and
 * role) are separate occurrences: the k-th repeat (k > 0) gets ids of its own, a standalone item a document of its
 * own, so every occurrence is stored; an occurrence already stored by an earlier request is the same item.
 */
function planDocuments(bankId: string, items: RetainItem[], now: string): PlannedDocument[] {
  const docs = new Map<string, PlannedDocument>();
  const seen = new Map<string, number>();
  for (const item of items) {
    const timestamp = item.timestamp ?? now;
    const itemHash = contentHash(
      item.content,
      item.speaker,
      item.timestamp,
      item.context,
      JSON.stringify(item.metadata ?? {}),
      JSON.stringify(item.tags ?? []),
      ...sessionPart(item),
    );
    const key = contentHash(item.documentId, itemHash, item.role);
    const repeat = seen.get(key) ?? 0;
    seen.set(key, repeat + 1);
    // The first occurrence keeps the ids items always had (stored items stay unchanged when retained again).
    const occurrence = repeat === 0 ? [] : [`#${repeat}`];
    const docId = item.documentId ?? derivedId('doc', bankId, itemHash, ...occurrence);
    const doc = docs.get(docId) ?? { id: docId, items: [] };
    doc.items.push({ item, itemId: derivedId('itm', bankId, docId, itemHash, ...occurrence), timestamp });
    docs.set(docId, doc);
  }
  return [...docs.values()];
}

async function chunksOf(bankId: string, doc: PlannedDocument, firstIndex: number): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  let turn = performance.now();
  for (const { item, itemId, timestamp } of doc.items) {
    let i = 0;
    for (const piece of textPieces(item.content)) {
      // Cutting a long item runs in slices, with turns of the event loop between them for other requests.
      if (performance.now() - turn > SLICE_MS) {
        await nextTurn();
        turn = performance.now();
      }
      const hash = contentHash(
        piece.text,
        item.speaker,
        item.timestamp,
        item.context,
        JSON.stringify(item.metadata ?? {}),
        JSON.stringify(item.tags ?? []),
        item.role,
        ...sessionPart(item),
      );
      chunks.push({
        id: derivedId('chk', bankId, doc.id, itemId, String(i++), hash),
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
        session: sessionOf(item),
      });
    }
  }
  return chunks;
}

/** An item's session: the one it names (null: none), else its document; an item with neither belongs to none. */
const sessionOf = (item: RetainItem): string | null => (item.session === undefined ? (item.documentId ?? null) : item.session);

/** What an explicit session adds to an item's hashes (nothing when it names none, so ids stored before stay). */
const sessionPart = (item: RetainItem): string[] => (item.session === undefined ? [] : [`session:${item.session ?? ''}`]);

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

/** How a retain runs: who hears its progress, and the operation it runs as (if any). */
export interface RetainRun {
  /** Called after each document with the items done so far and the request's item count. */
  progress?: Progress;
  /**
   * The operation this retain runs as (status running in the store). Each write records in it, in the write's
   * transaction, the progress and the result so far. An operation that already holds such a record (resumed after a
   * crash) goes on from it: the documents it counts are skipped, the chunks of a document it left part-way are not
   * written again, and the result counts every item of the operation (those chunks' facts included).
   */
  operation?: Operation;
  /** Told what the retain waits for when it cannot start at once (another retain into the bank holds its write
   * lease), and told null once it holds the lease, before it goes on; each call is awaited. */
  waiting?: (what: string | null) => Promise<void>;
}

/** How long a retain waits for its bank's write lease before it says so: uncontended takes are not recorded. */
export const LEASE_NOTICE_MS = 200;

/** What a retain waiting for its bank's write lease says it waits for. */
export const WAITING_FOR_LEASE = "the bank's write lease (another retain into the bank is writing)";

export async function retain(deps: RetainDeps, bank: Bank, request: RetainRequest, run: RetainRun = {}): Promise<RetainResult> {
  const { waiting } = run;
  if (!waiting) return deps.leases.run(bank.id, () => retainLocked(deps, bank, request, run));
  // Said only after a while without the lease; the "done waiting" that follows waits for that saying to be recorded.
  // Both are told as a courtesy: a failure to record them never fails the retain (its first write clears the record).
  const tell = (what: string | null): Promise<void> => waiting(what).catch(() => undefined);
  let said: Promise<void> | null = null;
  const notice = setTimeout(() => {
    said = tell(WAITING_FOR_LEASE);
  }, LEASE_NOTICE_MS);
  try {
    return await deps.leases.run(bank.id, async () => {
      clearTimeout(notice);
      if (said) {
        await said;
        await tell(null);
      }
      return retainLocked(deps, bank, request, run);
    });
  } finally {
    clearTimeout(notice);
  }
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

async function planWrite(store: RecallReads, bankId: string, doc: PlannedDocument, append: boolean, now: string): Promise<DocumentWrite> {
  const existing = await store.listChunks(bankId, doc.id);
  const stored = await store.getDocument(bankId, doc.id);
  const existingIds = new Set(existing.map((c) => c.id));
  const planned = await chunksOf(bankId, doc, append ? existing.length : 0);
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
async function lastFactOf(store: RecallReads, bankId: string, chunkIds: string[]): Promise<string | null> {
  if (chunkIds.length === 0) return null;
  const facts = await store.factIdsOfChunks(bankId, chunkIds);
  for (const chunkId of chunkIds) {
    const ids = facts
      .filter((f) => f.chunkId === chunkId)
      .map((f) => f.factId)
      .sort();
    if (ids.length) return ids[ids.length - 1];
  }
  return null;
}

async function retainLocked(deps: RetainDeps, bank: Bank, request: RetainRequest, run: RetainRun): Promise<RetainResult> {
  const { store } = deps;
  const now = nowIso();
  const append = request.documentMode === 'append';
  const tally = new Tally(request.items.length, run.operation);
  const plans: DocumentWrite[] = [];
  const docs = planDocuments(bank.id, request.items, now);
  for (const doc of tally.remaining(docs)) plans.push(await planWrite(store, bank.id, doc, append, now));
  tally.planned(plans);
  // Every new chunk is handed to the extractor now (as many at once as it takes), so later chunks are extracted
  // while earlier ones are embedded and written; writes still happen in order, one transaction per batch.
  const extractions = new Extractions(deps.extractor, bank, addresseesOf(docs, request.items));
  // Semantic links look at the bank as it was before this retain, and at this retain's last facts.
  const recent = new RecentFacts(now);
  for (const plan of plans) if (!plan.unchanged) extractions.start(plan.fresh, plan.doc);
  const tell = (): void => run.progress?.(tally.itemsDone, request.items.length, tally.chunks());
  const done = (plan: DocumentWrite): void => {
    tally.finished(plan);
    tell();
  };
  // Writes of one group go in one transaction when the store can (the last carries the checkpoint), else one by one
  // (each carries its own).
  const apply = async (writes: Array<{ write: ItemWrite; completes?: DocumentWrite }>): Promise<void> => {
    writes.forEach(({ write, completes }, i) => {
      tally.wrote(write);
      if (completes) tally.finished(completes);
      if (run.operation && (!store.writeItems || i === writes.length - 1)) write.operation = tally.snapshot(run.operation);
    });
    await traced('retain.write', { 'cairn.items': writes.length }, async () => {
      if (writes.length === 1) await store.writeItem(writes[0].write);
      else if (store.writeItems) await store.writeItems(writes.map((w) => w.write));
      else for (const { write } of writes) await store.writeItem(write);
    });
    // The operation in hand follows its stored record (what a failure later records keeps what was done).
    const recorded = writes.at(-1)?.write.operation;
    if (run.operation && recorded)
      Object.assign(run.operation, { progress: recorded.progress, result: recorded.result, updatedAt: recorded.updatedAt });
    // After every write, not only a document's last: a long item's chunks show progress as they are written.
    tell();
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
        const writes = await buildWrites(deps, bank, parts, recent);
        await apply(writes.map((write, i) => ({ write, completes: group[i] })));
        continue;
      }
      const plan = group[0];
      const { stored, document, fresh, removed } = plan;
      if (plan.unchanged) {
        done(plan);
        continue;
      }
      let previousFactId = await lastFactOf(store, bank.id, plan.before);
      // Batches of WRITE_BATCH chunks, or fewer once their facts reach WRITE_BATCH_FACTS; one (perhaps of no chunk)
      // at least, which carries the document and its removed chunks.
      for (let i = 0, first = true; first || i < fresh.length; first = false) {
        const extracted: Array<{ chunk: Chunk; facts: ExtractedFact[] }> = [];
        for (let facts = 0; i < fresh.length && extracted.length < WRITE_BATCH && facts < WRITE_BATCH_FACTS; i++) {
          const [one] = await extractions.of([fresh[i]]);
          extracted.push(one);
          facts += one.facts.length;
        }
        const last = i >= fresh.length;
        // Until the last batch is written the document keeps its old hash, so a crash mid-way re-processes the rest.
        const batchDoc = last ? document : { ...document, contentHash: stored?.contentHash ?? 'incomplete' };
        const [write] = await buildWrites(
          deps,
          bank,
          [{ document: batchDoc, extracted, removeChunkIds: first ? removed : [], previousFactId }],
          recent,
        );
        // A later batch needs the document the earlier ones wrote: deleted meanwhile, the retain stops there.
        if (!first) write.continues = true;
        await apply([{ write, completes: last ? plan : undefined }]);
        // The next batch's chain goes on from this one's last fact.
        previousFactId = write.facts.at(-1)?.id ?? previousFactId;
      }
    }
  } finally {
    extractions.cancel();
  }
  return tally.total(store, bank.id);
}

const isRetainResult = (x: unknown): x is RetainResult =>
  typeof x === 'object' &&
  x !== null &&
  Array.isArray((x as RetainResult).factIds) &&
  (['documents', 'documentsUnchanged', 'chunksProcessed', 'chunksRemoved', 'facts', 'entities'] as const).every(
    (k) => typeof (x as RetainResult)[k] === 'number',
  );

/**
 * The running count of a retain: its result and the items done, going on from the record of a resumed operation.
 * `entities` counts distinct entities mentioned by the facts written.
 */
class Tally {
  readonly result: RetainResult = {
    documents: 0,
    documentsUnchanged: 0,
    chunksProcessed: 0,
    chunksRemoved: 0,
    facts: 0,
    factIds: [],
    entities: 0,
  };
  itemsDone = 0;
  /** Chunks of new text this retain writes in all (those a resumed operation wrote before included). */
  private chunksTotal = 0;
  private readonly entityIds = new Set<string>();
  /** The record this run went on from (a resumed operation's), if any. */
  private readonly base: { itemsDone: number; result: RetainResult } | null;

  constructor(
    private readonly items: number,
    operation: Operation | undefined,
  ) {
    // Any recorded result is a base, items done or not: a long document checkpoints after each batch of its chunks
    // (progress still 0 while it is the first), and the resume writes only the chunks those batches did not store.
    const record = operation?.result;
    this.base = operation && isRetainResult(record) ? { itemsDone: operation.progress.done, result: record } : null;
    if (this.base) {
      Object.assign(this.result, this.base.result, { factIds: [...this.base.result.factIds] });
      this.itemsDone = this.base.itemsDone;
    }
  }

  /** The documents left to do: those after the ones the base record counts. */
  remaining(docs: PlannedDocument[]): PlannedDocument[] {
    let skipped = 0;
    let i = 0;
    while (this.base && i < docs.length && skipped + docs[i].items.length <= this.base.itemsDone) skipped += docs[i++].items.length;
    return docs.slice(i);
  }

  /** The documents to write are known: their new chunks are the chunk total (after those of the base record). */
  planned(plans: DocumentWrite[]): void {
    this.chunksTotal = (this.base?.result.chunksProcessed ?? 0) + plans.reduce((n, p) => n + (p.unchanged ? 0 : p.fresh.length), 0);
  }

  /** Chunks written so far and in all. */
  chunks(): ChunkProgress {
    return { done: this.result.chunksProcessed, total: Math.max(this.chunksTotal, this.result.chunksProcessed) };
  }

  wrote(w: ItemWrite): void {
    this.result.facts += w.facts.length;
    this.result.factIds.push(...w.facts.map((f) => f.id));
    this.result.chunksProcessed += w.chunks.length;
    this.result.chunksRemoved += w.removeChunkIds.length;
    for (const f of w.facts) for (const e of f.entities) this.entityIds.add(e);
    this.result.entities = (this.base?.result.entities ?? 0) + this.entityIds.size;
  }

  finished(plan: DocumentWrite): void {
    this.result.documents++;
    if (plan.unchanged) this.result.documentsUnchanged++;
    this.itemsDone += plan.doc.items.length;
  }

  /**
   * The operation as it stands once the write carrying this checkpoint is in. Only an operation that can resume
   * (it keeps its input) carries its result so far: the record a resume goes on from. (Its fact ids grow with the
   * request, which the API bounds; a CLI retain of a large file keeps no input, so it records progress alone.)
   */
  snapshot(op: Operation): Operation {
    const result = op.input === null ? null : { ...this.result, factIds: [...this.result.factIds] };
    const progress = { done: this.itemsDone, total: this.items, chunks: this.chunks() };
    return { ...op, status: 'running', progress, result, updatedAt: nowIso() };
  }

  /** The final result; after a resume, the entities of the facts written before it are counted once with the rest. */
  async total(store: RecallReads, bankId: string): Promise<RetainResult> {
    if (this.base) {
      for (const f of await store.getFacts(bankId, this.base.result.factIds)) for (const e of f.entities) this.entityIds.add(e);
      this.result.entities = this.entityIds.size;
    }
    return this.result;
  }
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
        return traced('retain.extract', { 'cairn.chars': chunk.text.length, 'cairn.extractor': this.extractor.name }, () =>
          this.extractor.extract({
            bankId: this.bank.id,
            text: chunk.text,
            speaker: chunk.speaker,
            addressee: this.addressees.get(chunk.itemId) ?? null,
            fromAgent: isAgent(items.get(chunk.itemId)),
            timestamp: chunk.timestamp ?? nowIso(),
            context: chunk.context,
            mode,
            mission,
          }),
        );
      });
      task.catch(() => undefined); // a failure surfaces when its batch is written; until then it must not go unhandled
      this.pending.set(chunk, task);
    }
  }

  /** The extractions of these chunks (each taken once: a long request does not keep what it has written). */
  async of(chunks: Chunk[]): Promise<Array<{ chunk: Chunk; facts: ExtractedFact[] }>> {
    const tasks = chunks.map((chunk) => {
      const task = this.pending.get(chunk)!;
      this.pending.delete(chunk);
      return task;
    });
    return Promise.all(chunks.map(async (chunk, i) => ({ chunk, facts: await tasks[i] })));
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

/** A fact's metadata: its item's, plus whom its "you" addressed when extraction read that from the sentence. */
function factMetadata(chunk: Chunk, x: ExtractedFact): Record<string, string> {
  return x.addressee ? { ...chunk.metadata, addressee: x.addressee } : chunk.metadata;
}

/** Resolves, embeds and links the facts of one or more documents' chunks: one write per part, to apply in order.
 * The facts join `recent` (the retain's facts its later writes link to) once linked. */
async function buildWrites(deps: RetainDeps, bank: Bank, parts: WritePart[], recent: RecentFacts): Promise<ItemWrite[]> {
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
      const names = passageNames(found);
      for (const [i, x] of found.entries()) {
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
          source: {
            documentId: document.id,
            chunkId: chunk.id,
            itemId: chunk.itemId,
            start: x.start,
            end: x.end,
            session: chunk.session ?? null,
          },
          speaker: chunk.speaker,
          metadata: factMetadata(chunk, x),
          tags: chunk.tags,
          stance: x.kind === 'experience' ? null : stanceOf(chunk.text.slice(x.start, x.end)),
          context: factContext(chunk, found, i, names),
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
        if (previous)
          links.push({
            bankId: bank.id,
            from: previous.id,
            to: fact.id,
            type: 'temporal',
            weight: previous.chunkId === chunk.id ? 1 : 0.8,
          });
        for (const c of x.causedBy) if (ids[c]) links.push({ bankId: bank.id, from: ids[c], to: fact.id, type: 'causal', weight: 1 });
        ids.push(fact.id);
        own.push(fact);
        previous = { id: fact.id, chunkId: chunk.id };
      }
    }
    facts.push(...own);
    factsOfPart.push(own);
  }
  const vectors = facts.length
    ? await traced('retain.embed', { 'cairn.facts': facts.length }, () => embedder.embed(facts.map((f) => f.text)))
    : [];
  const vectorOf = new Map(facts.map((f, i) => [f.id, vectors[i]]));
  const records = facts.map((f) => ({ id: f.id, kind: f.kind, vector: vectorOf.get(f.id)! }));
  links.push(...(await traced('retain.links', { 'cairn.facts': records.length }, () => semanticLinks(store, bank.id, records, recent))));
  recent.add(records);
  // Entities go with the first document (before any fact mentions them), links with the last (after both ends).
  return parts.map((part, i) => ({
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
}
