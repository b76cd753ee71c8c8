// Row <-> domain mapping for the SQLite store: JSON columns, nullable columns, and the shared SELECT lists.
import type { Bank, Chunk, DocumentRecord, Entity, Fact, FactKind, FactStatus, Operation, OperationStatus } from '../../core/types.ts';

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
  };
}

/** Facts are read with their entity ids aggregated into one JSON column. */
export const FACT_COLUMNS = `f.*, (SELECT json_group_array(fe.entity_id) FROM fact_entities fe WHERE fe.fact_id = f.id) AS entity_ids`;

export function toFact(r: Row): Fact {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    kind: String(r.kind) as FactKind,
    text: String(r.text),
    occurredStart: str(r.occurred_start),
    occurredEnd: str(r.occurred_end),
    mentionedAt: String(r.mentioned_at),
    entities: parseJson(r.entity_ids, []),
    source:
      r.chunk_id === null || r.chunk_id === undefined
        ? null
        : {
            documentId: String(r.document_id),
            chunkId: String(r.chunk_id),
            itemId: String(r.item_id),
            start: Number(r.span_start),
            end: Number(r.span_end),
          },
    speaker: str(r.speaker),
    metadata: parseJson(r.metadata, {}),
    tags: parseJson(r.tags, []),
    status: String(r.status) as FactStatus,
    validFrom: str(r.valid_from),
    validTo: str(r.valid_to),
    supersededBy: str(r.superseded_by),
    supersededAt: str(r.superseded_at),
    consolidatedAt: str(r.consolidated_at),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
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

export function toOperation(r: Row): Operation {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    kind: String(r.kind),
    status: String(r.status) as OperationStatus,
    progress: { done: Number(r.progress_done), total: Number(r.progress_total) },
    input: parseJson(r.input, null),
    result: parseJson(r.result, null),
    error: str(r.error),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

/** `?, ?, ?` for n parameters. */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
