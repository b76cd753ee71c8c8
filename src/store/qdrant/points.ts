// Qdrant points of Cairn facts: the point id is a UUIDv5 of the fact id (so writing a fact's vector twice
// overwrites the same point: upserts are idempotent), the payload carries what search filters on (bank, kind,
// tags, record time) and the fact id back. Collection names derive from the embedder id.
import { createHash } from 'node:crypto';
import type { FactKind } from '../../core/index.ts';

/** The UUID namespace of Cairn fact points (a fixed random UUID). */
export const FACT_POINT_NAMESPACE = '3c5d9e0a-7f41-4b8e-9a2d-6e1f0b7c4a58';

/** RFC 4122 version-5 (SHA-1, name-based) UUID of `name` in `namespace`. */
export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error(`'${namespace}' is not a UUID`);
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const pointId = (factId: string): string => uuidV5(factId, FACT_POINT_NAMESPACE);

/**
 * The collection holding the vectors of one embedder: `<prefix>_<slug>_<hash>`, the slug readable, the hash
 * (of the exact embedder id) keeping two ids that slug alike apart.
 */
export function collectionName(prefix: string, embedder: string): string {
  const slug =
    embedder
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'embedder';
  const hash = createHash('sha256').update(embedder).digest('hex').slice(0, 10);
  return `${prefix}_${slug}_${hash}`;
}

export interface FactPayload {
  bank_id: string;
  fact_id: string;
  kind: FactKind;
  tags: string[];
  /** Record time (RFC 3339), indexed as a datetime for asOf filters. */
  created_at: string;
}

export interface PointSource {
  id: string;
  bankId: string;
  kind: FactKind;
  tags: string[];
  createdAt: string;
}

export function payloadOf(f: PointSource): FactPayload {
  return { bank_id: f.bankId, fact_id: f.id, kind: f.kind, tags: [...f.tags], created_at: f.createdAt };
}
