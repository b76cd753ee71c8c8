// The Qdrant filter of a vector search: always the bank (the tenant key), then the FactFilter's kinds (any of),
// tags (all of: one condition per tag, each matching when the tags array holds it) and record time (asOf).
// Supersession and staged writes are not in the payload: Neo4j, the system of record, confirms every hit.
import type { Schemas } from '@qdrant/js-client-rest';
import type { FactFilter } from '../ports.ts';

export type QdrantFilter = Schemas['Filter'];
type FieldCondition = Schemas['FieldCondition'];

export function bankFilter(bankId: string): QdrantFilter {
  return { must: [{ key: 'bank_id', match: { value: bankId } }] };
}

export function searchFilter(bankId: string, filter: FactFilter = {}): QdrantFilter {
  const must: FieldCondition[] = [{ key: 'bank_id', match: { value: bankId } }];
  if (filter.kinds?.length) must.push({ key: 'kind', match: { any: [...filter.kinds] } });
  for (const tag of filter.tags ?? []) must.push({ key: 'tags', match: { value: tag } });
  if (filter.recordedBefore) must.push({ key: 'created_at', range: { lte: filter.recordedBefore } });
  return { must };
}
