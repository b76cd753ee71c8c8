// What recall adds to observation results: whether each is stale (facts about its entities wait to be
// consolidated), its proof count, on request its source facts (include.sourceFacts), and with asOf the text it
// had at that instant (null: it did not exist yet, so recall should drop it).
import type { MemoryStore } from '../store/ports.ts';
import { staleObservations } from '../consolidate/staleness.ts';
import { observationTextAsOf } from './as-of.ts';
import { sourceFactsOf, type SourceFact } from './source-facts.ts';

export interface ObservationExtras {
  stale: boolean;
  proofCount: number;
  sourceFacts?: SourceFact[];
  /** Present with asOf: the text as of then (null when the observation did not exist yet). */
  textAsOf?: string | null;
}

export interface ExtrasOptions {
  sourceFacts?: boolean;
  asOf?: string;
  /** Evidence facts returned per observation (default 20). */
  sourceFactsLimit?: number;
}

/** Extras for the observation results of a recall, by id (results of other kinds are not looked at). */
export async function observationExtras(
  store: MemoryStore,
  bankId: string,
  results: Array<{ id: string; kind: string }>,
  options: ExtrasOptions = {},
): Promise<Map<string, ObservationExtras>> {
  const ids = results.filter((r) => r.kind === 'observation').map((r) => r.id);
  const out = new Map<string, ObservationExtras>();
  if (ids.length === 0) return out;
  const observations = await store.getObservations(bankId, ids);
  const stale = await staleObservations(store, bankId, observations);
  const sources = options.sourceFacts ? await sourceFactsOf(store, bankId, ids, options.sourceFactsLimit) : null;
  for (const o of observations) {
    const extras: ObservationExtras = { stale: stale.has(o.id), proofCount: o.proofCount };
    if (sources) extras.sourceFacts = sources.get(o.id) ?? [];
    if (options.asOf) extras.textAsOf = await observationTextAsOf(store, bankId, o.id, options.asOf);
    out.set(o.id, extras);
  }
  return out;
}
