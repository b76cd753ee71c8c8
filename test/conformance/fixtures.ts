// Builders of store records for the conformance suite: banks, documents, chunks, facts, entities and small unit
// vectors (8 dimensions) whose nearest neighbours are known by construction.
import { randomBytes } from 'node:crypto';
import type { Bank, Chunk, DocumentRecord, Entity, Fact, FactKind, Observation, Stance } from '../../src/core/types.ts';
import type { Embedder } from '../../src/embed/ports.ts';
import type { ItemWrite, VectorRecord } from '../../src/store/ports.ts';

export const EMBEDDER = 'conformance:unit-8d';
export const DIM = 8;

/** A unit vector close to axis `axis` (0..7), leaning slightly towards `lean`. */
export function unit(axis: number, lean = (axis + 1) % DIM, amount = 0.2): Float32Array {
  const v = new Float32Array(DIM).fill(0.02);
  v[axis % DIM] = 1;
  v[lean % DIM] += amount;
  let n = 0;
  for (const x of v) n += x * x;
  return v.map((x) => x / Math.sqrt(n));
}

/** Ids unique to this run, so runs against a shared server never see each other. */
export function runId(): string {
  return randomBytes(4).toString('hex');
}

export const at = (day: number, hour = 12): string => new Date(Date.UTC(2024, 0, day, hour)).toISOString();

export function bank(id: string, mission = ''): Bank {
  return {
    id,
    name: `bank ${id}`,
    mission,
    config: { retainMission: 'remember people', nested: { a: 1 } },
    embedder: null,
    createdAt: at(1),
    updatedAt: at(1),
  };
}

export function doc(bankId: string, id: string, hash = `hash-${id}`): DocumentRecord {
  return { id, bankId, contentHash: hash, metadata: { source: 'conformance' }, tags: ['t1'], createdAt: at(1), updatedAt: at(1) };
}

export function chunk(bankId: string, documentId: string, id: string, index: number, text: string, speaker: string | null = null): Chunk {
  return {
    id,
    bankId,
    documentId,
    index,
    itemId: `${id}-item`,
    text,
    contentHash: `h-${id}`,
    speaker,
    timestamp: at(2),
    context: 'a test',
    metadata: { n: String(index) },
    tags: [],
    session: documentId,
  };
}

export interface FactInput {
  kind?: FactKind;
  entities?: string[];
  tags?: string[];
  occurredStart?: string | null;
  occurredEnd?: string | null;
  mentionedAt?: string;
  createdAt?: string;
  /** Default: occurredStart. */
  validFrom?: string | null;
  validTo?: string | null;
  chunk?: Chunk | null;
  speaker?: string | null;
  stance?: Stance | null;
  context?: string | null;
}

export function fact(bankId: string, id: string, text: string, o: FactInput = {}): Fact {
  const c = o.chunk === undefined ? null : o.chunk;
  const created = o.createdAt ?? at(3);
  return {
    id,
    bankId,
    kind: o.kind ?? 'world',
    text,
    occurredStart: o.occurredStart ?? null,
    occurredEnd: o.occurredEnd ?? null,
    mentionedAt: o.mentionedAt ?? at(2),
    entities: o.entities ?? [],
    source: c
      ? { documentId: c.documentId, chunkId: c.id, itemId: c.itemId, start: 0, end: Math.min(5, c.text.length), session: c.session ?? null }
      : null,
    speaker: o.speaker ?? null,
    metadata: { origin: id },
    tags: o.tags ?? [],
    stance: o.stance ?? null,
    context: o.context ?? null,
    status: 'active',
    validFrom: o.validFrom === undefined ? (o.occurredStart ?? null) : o.validFrom,
    validTo: o.validTo ?? null,
    supersededBy: null,
    supersededAt: null,
    consolidatedAt: null,
    createdAt: created,
    updatedAt: created,
  };
}

export function observation(bankId: string, id: string, text: string, createdAt = at(5), entities: string[] = []): Observation {
  return {
    ...fact(bankId, id, text, { kind: 'observation', createdAt, entities }),
    kind: 'observation',
    proofCount: 0,
    consolidatedAt: createdAt,
  };
}

export function entity(bankId: string, id: string, name: string, aliases: string[] = [], mentionCount = 1): Entity {
  return { id, bankId, name, aliases, type: 'person', mentionCount, firstSeen: at(2), lastSeen: at(3) };
}

/** An item write of one document: chunks, facts (each with a vector), entities and links. */
export function itemWrite(
  bankId: string,
  document: DocumentRecord,
  chunks: Chunk[],
  facts: Array<{ fact: Fact; vector: Float32Array }>,
  extra: Partial<Pick<ItemWrite, 'entities' | 'links' | 'removeChunkIds' | 'embedder'>> = {},
): ItemWrite {
  const vectors: VectorRecord[] = facts.map((f) => ({ id: f.fact.id, vector: f.vector }));
  return {
    bankId,
    document,
    chunks,
    removeChunkIds: extra.removeChunkIds ?? [],
    facts: facts.map((f) => f.fact),
    entities: extra.entities ?? [],
    links: extra.links ?? [],
    vectors,
    embedder: extra.embedder ?? EMBEDDER,
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * An embedder for retains through the engine: each word leans a text towards one of the 8 axes (by its hash). It
 * answers on a later turn of the event loop, as a model does, so retains running together interleave.
 */
export class HashEmbedder implements Embedder {
  readonly id = EMBEDDER;
  readonly dimensions = DIM;
  async embed(texts: string[]): Promise<Float32Array[]> {
    await new Promise((resolve) => setImmediate(resolve));
    return texts.map((text) => {
      const v = new Float32Array(DIM).fill(0.01);
      for (const word of text.toLowerCase().split(/\W+/).filter(Boolean)) {
        let h = 0;
        for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
        v[h % DIM] += 1;
      }
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
  }
}
