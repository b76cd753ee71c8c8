// The retain pipeline: items -> documents -> changed chunks -> extracted facts -> resolved entities ->
// vectors -> links, written atomically per document batch. Unchanged documents and chunks are skipped.
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

async function retainLocked(deps: RetainDeps, bank: Bank, request: RetainRequest, progress?: Progress): Promise<RetainResult> {
  const { store } = deps;
  const now = nowIso();
  const result: RetainResult = { documents: 0, documentsUnchanged: 0, chunksProcessed: 0, chunksRemoved: 0, facts: 0, factIds: [], entities: 0 };
  const docs = planDocuments(bank.id, request.items, now);
  const append = request.documentMode === 'append';
  let itemsDone = 0;
  for (const doc of docs) {
    const existing = await store.listChunks(bank.id, doc.id);
    const stored = await store.getDocument(bank.id, doc.id);
    const planned = chunksOf(bank.id, doc, append ? existing.length : 0);
    const all = append ? [...existing, ...planned.filter((c) => !existing.some((e) => e.id === c.id))] : planned;
    const docHash = contentHash(...all.map((c) => c.id));
    result.documents++;
    if (stored && stored.contentHash === docHash) {
      result.documentsUnchanged++;
      itemsDone += doc.items.length;
      progress?.(itemsDone, request.items.length);
      continue;
    }
    const existingIds = new Set(existing.map((c) => c.id));
    const plannedIds = new Set(all.map((c) => c.id));
    const fresh = all.filter((c) => !existingIds.has(c.id));
    const removed = append ? [] : existing.filter((c) => !plannedIds.has(c.id)).map((c) => c.id);
    const document: DocumentRecord = {
      id: doc.id,
      bankId: bank.id,
      contentHash: docHash,
      metadata: doc.items[0]?.item.metadata ?? {},
      tags: doc.items[0]?.item.tags ?? [],
      createdAt: stored?.createdAt ?? now,
      updatedAt: now,
    };
    const itemsById = new Map(doc.items.map((i) => [i.itemId, i.item]));
    for (let i = 0; i < Math.max(fresh.length, 1); i += WRITE_BATCH) {
      const batch = fresh.slice(i, i + WRITE_BATCH);
      const last = i + WRITE_BATCH >= fresh.length;
      // Until the last batch is written the document keeps its old hash, so a crash mid-way re-processes the rest.
      const batchDoc = last ? document : { ...document, contentHash: stored?.contentHash ?? 'incomplete' };
      const written = await writeChunks(deps, bank, batchDoc, batch, i === 0 ? removed : [], itemsById);
      result.facts += written.factIds.length;
      result.factIds.push(...written.factIds);
      result.entities += written.entities;
    }
    result.chunksProcessed += fresh.length;
    result.chunksRemoved += removed.length;
    itemsDone += doc.items.length;
    progress?.(itemsDone, request.items.length);
    // The store's calls are synchronous underneath: without a turn of the event loop between documents, a long
    // retain would hold every other request of the process (recall, status, progress polls) until it ends.
    await yieldToEventLoop();
  }
  return result;
}

async function writeChunks(
  deps: RetainDeps,
  bank: Bank,
  document: DocumentRecord,
  chunks: Chunk[],
  removeChunkIds: string[],
  items: Map<string, RetainItem>,
): Promise<{ factIds: string[]; entities: number }> {
  const { store, extractor, embedder } = deps;
  const extracted: Array<{ chunk: Chunk; facts: ExtractedFact[] }> = [];
  for (const chunk of chunks) {
    const facts = await extractor.extract({
      bankId: bank.id,
      text: chunk.text,
      speaker: chunk.speaker,
      fromAgent: isAgent(items.get(chunk.itemId)),
      timestamp: chunk.timestamp ?? nowIso(),
      context: chunk.context,
      mode: retainModeOf(bank.config),
      mission: typeof bank.config.retainMission === 'string' ? bank.config.retainMission : undefined,
    });
    extracted.push({ chunk, facts });
  }
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
