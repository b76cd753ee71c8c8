// What the consolidator sees for a batch of new facts: the observations related to them (sharing their entities
// or close to them in vector space, most related first, at most `batchSize`), each with its evidence (the first
// fact and the most recent ones), other facts about the same entities, and the vectors and entity names of it all.
import type { Bank, Evidence, Fact, FactKind, Observation } from '../core/index.ts';
import type { AuditReads, RecallReads } from '../store/index.ts';
import type { ConsolidationInput, RelatedObservation } from './consolidator.ts';

export interface ContextOptions {
  /** Most related observations (and most related facts) loaded per batch (default 50). */
  batchSize: number;
  /** Evidence facts loaded per observation: the first plus the most recent (default 24). */
  evidenceWindow: number;
  /** Observations taken from vector search per new fact (default 5). */
  nearestPerFact: number;
}

export const DEFAULT_CONTEXT_OPTIONS: ContextOptions = { batchSize: 50, evidenceWindow: 24, nearestPerFact: 5 };

export async function loadContext(
  store: RecallReads & AuditReads,
  bank: Bank,
  facts: Fact[],
  options: ContextOptions = DEFAULT_CONTEXT_OPTIONS,
  now: string = new Date().toISOString(),
): Promise<ConsolidationInput> {
  const bankId = bank.id;
  const newIds = new Set(facts.map((f) => f.id));
  const factVectors = await store.getVectors(bankId, [...newIds]);
  const entityIds = [...new Set(facts.flatMap((f) => f.entities))];

  // Candidates: the newest observations and facts mentioning each entity, plus observations near each new fact.
  const score = new Map<string, number>();
  const byId = new Map<string, Fact>();
  const bump = (f: Fact, by: number): void => {
    if (newIds.has(f.id)) return;
    byId.set(f.id, f);
    score.set(f.id, (score.get(f.id) ?? 0) + by);
  };
  for (const entityId of entityIds) {
    for (const kinds of [['observation'], ['world', 'experience']] as const) {
      for (const f of await newest(store, bankId, entityId, [...kinds], options.batchSize)) bump(f, 1);
    }
  }
  const nearIds = new Map<string, number>();
  for (const near of await store.vectors.searchMany(bankId, [...factVectors.values()], options.nearestPerFact, { kinds: ['observation'] }))
    for (const n of near) nearIds.set(n.id, Math.max(nearIds.get(n.id) ?? 0, n.score));
  const unseen = [...nearIds.keys()].filter((id) => !byId.has(id));
  for (const f of await store.getFacts(bankId, unseen)) byId.set(f.id, f);
  for (const [id, s] of nearIds) {
    const f = byId.get(id);
    if (f) bump(f, 1 + Math.max(0, s));
  }
  const candidates = [...byId.values()];
  const rank = (a: Fact, b: Fact): number => (score.get(b.id) ?? 0) - (score.get(a.id) ?? 0) || b.createdAt.localeCompare(a.createdAt);
  const observationIds = candidates
    .filter((f) => f.kind === 'observation')
    .sort(rank)
    .slice(0, options.batchSize)
    .map((f) => f.id);
  const relatedFacts = candidates
    .filter((f) => f.kind !== 'observation')
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || rank(a, b))
    .slice(0, options.batchSize);

  const observations: Observation[] = await store.getObservations(bankId, observationIds);
  const related: RelatedObservation[] = [];
  const evidenceIds = new Set<string>();
  const windows: Array<{ observation: Observation; evidence: Evidence[]; ids: string[] }> = [];
  for (const observation of observations) {
    const evidence = await store.evidenceOf(bankId, observation.id);
    const ids =
      evidence.length <= options.evidenceWindow
        ? evidence.map((e) => e.factId)
        : [evidence[0].factId, ...evidence.slice(-(options.evidenceWindow - 1)).map((e) => e.factId)];
    for (const id of ids) evidenceIds.add(id);
    windows.push({ observation, evidence, ids });
  }
  const known = new Map<string, Fact>([...facts, ...relatedFacts].map((f) => [f.id, f]));
  const missing = [...evidenceIds].filter((id) => !known.has(id));
  for (const f of await store.getFacts(bankId, missing)) known.set(f.id, f);
  for (const w of windows)
    related.push({
      observation: w.observation,
      evidence: w.evidence,
      facts: w.ids.map((id) => known.get(id)).filter((f): f is Fact => !!f),
    });

  const vectorIds = [...observationIds, ...relatedFacts.map((f) => f.id), ...missing].filter((id) => !factVectors.has(id));
  const vectors = new Map(factVectors);
  for (const [id, v] of await store.getVectors(bankId, vectorIds)) vectors.set(id, v);

  const allEntities = new Set<string>(entityIds);
  for (const f of known.values()) for (const e of f.entities) allEntities.add(e);
  for (const o of observations) for (const e of o.entities) allEntities.add(e);
  const entityNames = new Map((await store.getEntities(bankId, [...allEntities])).map((e) => [e.id, e.name]));

  return { bank, facts, observations: related, relatedFacts, vectors, entityNames, now };
}

/** The newest active facts of these kinds mentioning the entity (at most `limit`), oldest first. */
async function newest(store: RecallReads, bankId: string, entityId: string, kinds: FactKind[], limit: number): Promise<Fact[]> {
  return (await store.newestFacts(bankId, { kinds, entityId, limit })).reverse();
}
