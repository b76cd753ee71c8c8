// What recall adds to observation results: whether each is stale (facts about its entities wait to be
// consolidated, or every fact it rests on has been superseded: it is outdated), its proof count, on request its source facts (include.sourceFacts), and with asOf the text it
// had at that instant (null: it did not exist yet, so recall should drop it).
import type { AuditReads, ConsolidationQueue, RecallReads } from '../store/index.ts';
import { staleObservations } from '../consolidate/index.ts';
import { observationTextAsOf } from './as-of.ts';
import { sourceFactsOf, type SourceFact } from './source-facts.ts';

export interface ObservationExtras {
  stale: boolean;
  /** Every fact supporting it has been superseded by a newer one: what it says no longer holds. */
  outdated: boolean;
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
  store: AuditReads & RecallReads & ConsolidationQueue,
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
  const outdated = await outdatedObservations(store, bankId, ids);
  for (const o of observations) {
    const extras: ObservationExtras = {
      stale: stale.has(o.id) || outdated.has(o.id),
      outdated: outdated.has(o.id),
      proofCount: o.proofCount,
    };
    if (sources) extras.sourceFacts = sources.get(o.id) ?? [];
    if (options.asOf) extras.textAsOf = await observationTextAsOf(store, bankId, o.id, options.asOf);
    out.set(o.id, extras);
  }
  return out;
}

/** Observations whose supporting facts have all been superseded (contradicting evidence does not count). */
async function outdatedObservations(store: AuditReads & RecallReads, bankId: string, ids: string[]): Promise<Set<string>> {
  const supporting = new Map<string, string[]>();
  for (const id of ids)
    supporting.set(
      id,
      (await store.evidenceOf(bankId, id)).filter((e) => e.role === 'supports').map((e) => e.factId),
    );
  // One read of every supporting fact, not one per observation.
  const status = new Map((await store.getFacts(bankId, [...new Set([...supporting.values()].flat())])).map((f) => [f.id, f.status]));
  const out = new Set<string>();
  for (const [id, facts] of supporting) {
    const found = facts.filter((f) => status.has(f));
    if (found.length > 0 && found.every((f) => status.get(f) === 'superseded')) out.add(id);
  }
  return out;
}
