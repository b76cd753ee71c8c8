// Versioned collection specs for Qdrant: the numbered JSON files of migrations/qdrant, read in file-name order.
// A spec may give the settings a collection is created with (`create`, later files override earlier keys),
// settings to update on existing collections (`update`) and payload indexes to ensure. Qdrant has no place to
// record applied migrations, so every spec is written to be re-applied at each start: creating an index that
// exists, or updating a setting to the value it has, changes nothing.
import type { Schemas } from '@qdrant/js-client-rest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const QDRANT_MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../migrations/qdrant');

export interface PayloadIndexSpec {
  field_name: string;
  field_schema: Schemas['PayloadFieldSchema'];
}

export interface CollectionSpec {
  name: string;
  description?: string;
  /** Settings of a new collection, less the vector size (known at the first write). */
  create?: {
    vectors?: { distance: Schemas['Distance']; on_disk?: boolean };
    hnsw_config?: Schemas['HnswConfigDiff'];
    optimizers_config?: Schemas['OptimizersConfigDiff'];
    on_disk_payload?: boolean;
  };
  update?: Schemas['UpdateCollection'];
  payload_indexes?: PayloadIndexSpec[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses one spec file, rejecting the shapes the applier would not understand. */
export function parseSpec(name: string, text: string): CollectionSpec {
  const raw: unknown = JSON.parse(text);
  if (!isRecord(raw)) throw new Error(`${name}: a Qdrant spec is a JSON object`);
  for (const key of Object.keys(raw))
    if (!['description', 'create', 'update', 'payload_indexes'].includes(key)) throw new Error(`${name}: unknown key '${key}'`);
  if (raw.create !== undefined && !isRecord(raw.create)) throw new Error(`${name}: 'create' must be an object`);
  if (raw.update !== undefined && !isRecord(raw.update)) throw new Error(`${name}: 'update' must be an object`);
  const indexes = raw.payload_indexes ?? [];
  if (!Array.isArray(indexes) || !indexes.every((i) => isRecord(i) && typeof i.field_name === 'string' && i.field_schema !== undefined))
    throw new Error(`${name}: 'payload_indexes' must be a list of {field_name, field_schema}`);
  return { name, ...(raw as Omit<CollectionSpec, 'name'>) };
}

export function readSpecs(dir: string = QDRANT_MIGRATIONS_DIR): CollectionSpec[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => parseSpec(f, readFileSync(join(dir, f), 'utf8')));
}

/** The body of createCollection for vectors of `size` dimensions: the `create` parts of every spec, in order. */
export function creationBody(specs: CollectionSpec[], size: number): Schemas['CreateCollection'] {
  let vectors: { distance: Schemas['Distance']; on_disk?: boolean } = { distance: 'Cosine' };
  const body: Omit<Schemas['CreateCollection'], 'vectors'> = {};
  for (const s of specs) {
    if (!s.create) continue;
    if (s.create.vectors) vectors = { ...vectors, ...s.create.vectors };
    if (s.create.hnsw_config) body.hnsw_config = { ...body.hnsw_config, ...s.create.hnsw_config };
    if (s.create.optimizers_config) body.optimizers_config = { ...body.optimizers_config, ...s.create.optimizers_config };
    if (s.create.on_disk_payload !== undefined) body.on_disk_payload = s.create.on_disk_payload;
  }
  return { ...body, vectors: { size, ...vectors } };
}

/** Payload indexes of every spec, the last spec naming a field deciding its schema. */
export function payloadIndexes(specs: CollectionSpec[]): PayloadIndexSpec[] {
  const byField = new Map<string, PayloadIndexSpec>();
  for (const s of specs) for (const i of s.payload_indexes ?? []) byField.set(i.field_name, i);
  return [...byField.values()];
}
