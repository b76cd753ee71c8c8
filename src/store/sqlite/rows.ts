// Row <-> domain mapping for the SQLite store: JSON columns, nullable columns, and the shared SELECT lists.
import type {
  Bank,
  Chunk,
  DocumentRecord,
  Entity,
  Fact,
  FactKind,
  FactStatus,
  Operation,
  OperationStatus,
  Stance,
} from '../../core/index.ts';
import { isUnfinished } from '../../core/index.ts';
import type { FactFacets, Tombstone } from '../ports.ts';

export type Row = Record<string, unknown>;

export const json = (value: unknown): string => JSON.stringify(value ?? null);
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || text === '') return fallback;
  return JSON.parse(text) as T;
}
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function toBank(r: Row): Bank {
  return {
    id: String(r.id),
    name: String(r.name),
    mission: String(r.mission),
    config: parseJson(r.config, {}),
    embedder: str(r.embedder),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

export function toDocument(r: Row): DocumentRecord {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    contentHash: String(r.content_hash),
    metadata: parseJson(r.metadata, {}),
    tags: parseJson(r.tags, []),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

export function toChunk(r: Row): Chunk {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    documentId: String(r.document_id),
    index: Number(r.idx),
    itemId: String(r.item_id),
    text: String(r.text),
    contentHash: String(r.content_hash),
    speaker: str(r.speaker),
    timestamp: str(r.timestamp),
    context: str(r.context),
    metadata: parseJson(r.metadata, {}),
    tags: parseJson(r.tags, []),
    session: str(r.session),
  };
}

/** The columns a fact is read from, in order, its entity ids aggregated into one JSON array last. Facts are read
 * as arrays (better-sqlite3's raw mode): for a row this wide, several times cheaper than a row object, which
 * recall, reading a few hundred facts per query, notices. */
const FACT_FIELDS = [
  'rid',
  'id',
  'bank_id',
  'kind',
  'text',
  'occurred_start',
  'occurred_end',
  'mentioned_at',
  'document_id',
  'chunk_id',
  'item_id',
  'span_start',
  'span_end',
  'speaker',
  'metadata',
  'tags',
  'status',
  'valid_from',
  'valid_to',
  'superseded_by',
  'superseded_at',
  'consolidated_at',
  'created_at',
  'updated_at',
  'session',
  'stance',
  'context',
  'entity_ids',
] as const;

/** A column's place in a fact read as an array. */
export const F = Object.fromEntries(FACT_FIELDS.map((name, i) => [name, i])) as Record<(typeof FACT_FIELDS)[number], number>;

export const FACT_COLUMNS = [
  ...FACT_FIELDS.slice(0, -1).map((name) => `f.${name}`),
  '(SELECT json_group_array(fe.entity_id) FROM fact_entities fe WHERE fe.fact_id = f.id) AS entity_ids',
].join(', ');

/** A fact from a row of FACT_COLUMNS read in raw mode. */
export function toFact(v: unknown[]): Fact {
  return {
    id: String(v[F.id]),
    bankId: String(v[F.bank_id]),
    kind: String(v[F.kind]) as FactKind,
    text: String(v[F.text]),
    occurredStart: str(v[F.occurred_start]),
    occurredEnd: str(v[F.occurred_end]),
    mentionedAt: String(v[F.mentioned_at]),
    entities: parseJson(v[F.entity_ids], []),
    source:
      v[F.chunk_id] === null || v[F.chunk_id] === undefined
        ? null
        : {
            documentId: String(v[F.document_id]),
            chunkId: String(v[F.chunk_id]),
            itemId: String(v[F.item_id]),
            start: Number(v[F.span_start]),
            end: Number(v[F.span_end]),
            session: str(v[F.session]),
          },
    speaker: str(v[F.speaker]),
    metadata: parseJson(v[F.metadata], {}),
    tags: parseJson(v[F.tags], []),
    stance: str(v[F.stance]) as Stance | null,
    context: str(v[F.context]),
    status: String(v[F.status]) as FactStatus,
    validFrom: str(v[F.valid_from]),
    validTo: str(v[F.valid_to]),
    supersededBy: str(v[F.superseded_by]),
    supersededAt: str(v[F.superseded_at]),
    consolidatedAt: str(v[F.consolidated_at]),
    createdAt: String(v[F.created_at]),
    updatedAt: String(v[F.updated_at]),
  };
}

/** The narrow row of FactFacets (read in raw mode), with the entity ids last when asked for. */
export const factFacetColumns = (entities: boolean): string =>
  [
    'f.id, f.kind, f.tags, f.stance, f.status, f.occurred_start, f.occurred_end, f.mentioned_at, f.valid_from, f.valid_to, f.created_at',
    'f.superseded_at, f.chunk_id, f.document_id, f.span_start',
    ...(entities ? ['(SELECT json_group_array(fe.entity_id) FROM fact_entities fe WHERE fe.fact_id = f.id)'] : []),
  ].join(', ');

export function toFactFacets(v: unknown[]): FactFacets {
  const facets: FactFacets = {
    id: String(v[0]),
    kind: String(v[1]) as FactKind,
    // Most facts carry no tags: skip the parse of '[]'.
    tags: v[2] === '[]' ? [] : parseJson(v[2], []),
    stance: str(v[3]) as Stance | null,
    status: String(v[4]) as FactStatus,
    occurredStart: str(v[5]),
    occurredEnd: str(v[6]),
    mentionedAt: String(v[7]),
    validFrom: str(v[8]),
    validTo: str(v[9]),
    createdAt: String(v[10]),
    supersededAt: str(v[11]),
    source: v[12] === null || v[12] === undefined ? null : { chunkId: String(v[12]), documentId: String(v[13]), start: Number(v[14]) },
  };
  if (v.length > 15) facets.entities = parseJson(v[15], []);
  return facets;
}

export function toEntity(r: Row): Entity {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    name: String(r.name),
    aliases: parseJson(r.aliases, []),
    type: str(r.type),
    mentionCount: Number(r.mention_count),
    firstSeen: String(r.first_seen),
    lastSeen: String(r.last_seen),
  };
}

export function toTombstone(r: Row): Tombstone {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    kind: String(r.kind) as Tombstone['kind'],
    targetId: String(r.target_id),
    reason: String(r.reason),
    at: String(r.at),
  };
}

export function toOperation(r: Row): Operation {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    kind: String(r.kind),
    status: String(r.status) as OperationStatus,
    progress: {
      done: Number(r.progress_done),
      total: Number(r.progress_total),
      ...(r.progress_chunks_total == null
        ? {}
        : { chunks: { done: Number(r.progress_chunks_done), total: Number(r.progress_chunks_total) } }),
      // Only while unfinished: an operation that ended while it waited (failed by its bank's deletion) waits no more.
      ...(r.progress_waiting == null || !isUnfinished(String(r.status)) ? {} : { waiting: String(r.progress_waiting) }),
    },
    input: parseJson(r.input, null),
    result: parseJson(r.result, null),
    error: str(r.error),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    owner: str(r.owner),
  };
}

/** `?, ?, ?` for n parameters. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** Most values an IN list takes; longer lists are read in parts of this size. */
const IN_LIST_MAX = 512;

/** The values in IN lists of at most IN_LIST_MAX, each padded to a power of two by repeating its last value, with its
 * placeholders: a query takes one of ten texts whatever the number of values, where one text per length made the
 * statement cache prepare anew (about 150 us for a long list) on most reads. */
export function* inLists<T>(values: T[]): Generator<{ marks: string; values: T[] }> {
  for (let i = 0; i < values.length; i += IN_LIST_MAX) {
    const part = values.slice(i, i + IN_LIST_MAX);
    let size = 1;
    while (size < part.length) size *= 2;
    while (part.length < size) part.push(part[part.length - 1]);
    yield { marks: placeholders(size), values: part };
  }
}

/** A condition on a row of `banks`: the bank's delete has not begun (deletes.ts deletes a bank over several
 * transactions; from the first, the bank is gone for every reader and writer). */
export const NOT_PURGING = 'NOT EXISTS (SELECT 1 FROM bank_purges p WHERE p.bank_id = banks.id)';

/** A condition on a row of `documents`: its delete has not begun (a document being deleted is no longer stored for
 * readers, nor for a retain deciding whether its content is unchanged). */
export const DOCUMENT_NOT_PURGING =
  'NOT EXISTS (SELECT 1 FROM document_purges p WHERE p.bank_id = documents.bank_id AND p.document_id = documents.id)';
