// The Qdrant filter of a vector search: always the bank (the tenant key), then the FactFilter's kinds (any of),
// tags (all of: one condition per tag, each matching when the tags array holds it) and record time (asOf).
// Supersession, staged writes, occurred time and valid time are not in the payload (consolidation rewrites an
// observation's times and sets validTo when it supersedes, which would leave a copy here stale): Neo4j, the system of
// record, confirms every hit against the whole filter, and the search asks for more until enough pass.
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
