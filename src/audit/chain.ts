// The evidence chain of an observation, both ways: observation -> supporting and contradicting facts -> their
// exact source spans -> documents; and fact -> the observations it supports or contradicts.
import { notFoundOrDeleted, type EvidenceRole, type Fact, type Observation } from '../core/index.ts';
import type { AuditReads, RecallReads } from '../store/index.ts';
import { sourcesOf, type SourceSpan } from './source.ts';

export interface EvidenceLink {
  role: EvidenceRole;
  /** When the fact became evidence of the observation. */
  linkedAt: string;
  fact: Fact;
  source: SourceSpan | null;
}

export interface EvidenceChain {
  observation: Observation;
  supporting: EvidenceLink[];
  contradicting: EvidenceLink[];
}

export async function requireObservation(store: AuditReads, bankId: string, observationId: string): Promise<Observation> {
  const [observation] = await store.getObservations(bankId, [observationId]);
  if (!observation) throw notFoundOrDeleted('observation', observationId, await store.tombstoneOf(bankId, observationId, ['observation']));
  return observation;
}

export async function evidenceChain(store: AuditReads & RecallReads, bankId: string, observationId: string): Promise<EvidenceChain> {
  const observation = await requireObservation(store, bankId, observationId);
  const evidence = await store.evidenceOf(bankId, observationId);
  const facts = new Map(
    (
      await store.getFacts(
        bankId,
        evidence.map((e) => e.factId),
      )
    ).map((f) => [f.id, f]),
  );
  const sources = await sourcesOf(store, bankId, [...facts.values()]);
  const links: EvidenceLink[] = evidence.flatMap((e) => {
    const fact = facts.get(e.factId);
    return fact ? [{ role: e.role, linkedAt: e.createdAt, fact, source: sources.get(fact.id) ?? null }] : [];
  });
  return {
    observation,
    supporting: links.filter((l) => l.role === 'supports'),
    contradicting: links.filter((l) => l.role === 'contradicts'),
  };
}

export interface ObservationOfFact {
  role: EvidenceRole;
  linkedAt: string;
  observation: Observation;
}

/** The observations a fact supports or contradicts. */
export async function observationsOfFact(store: AuditReads, bankId: string, factId: string): Promise<ObservationOfFact[]> {
  const links = await store.observationsOfFact(bankId, factId);
  const observations = new Map(
    (
      await store.getObservations(
        bankId,
        links.map((l) => l.observationId),
      )
    ).map((o) => [o.id, o]),
  );
  return links.flatMap((l) => {
    const observation = observations.get(l.observationId);
    return observation ? [{ role: l.role, linkedAt: l.createdAt, observation }] : [];
  });
}
