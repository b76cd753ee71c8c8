// "Why do you know this?" for any recall result id. For an observation: its evidence chain down to the exact
// source sentences and documents, its history, and whether it is stale. For a fact: its source sentence and
// document, what superseded it, and the observations it supports or contradicts.
import { notFoundOrDeleted, type Fact, type Observation, type ObservationRevision } from '../core/index.ts';
import type { AuditReads, ConsolidationQueue, RecallReads } from '../store/index.ts';
import { staleObservations } from '../consolidate/index.ts';
import { evidenceChain, observationsOfFact, type EvidenceLink, type ObservationOfFact } from './chain.ts';
import { sourcesOf, type SourceSpan } from './source.ts';

export interface WhyObservation {
  id: string;
  kind: 'observation';
  observation: Observation;
  stale: boolean;
  supporting: EvidenceLink[];
  contradicting: EvidenceLink[];
  history: ObservationRevision[];
}

export interface WhyFact {
  id: string;
  kind: 'world' | 'experience';
  fact: Fact;
  source: SourceSpan | null;
  supersededBy: { fact: Fact; source: SourceSpan | null } | null;
  observations: ObservationOfFact[];
}

export type Why = WhyObservation | WhyFact;

export async function why(store: AuditReads & RecallReads & ConsolidationQueue, bankId: string, id: string): Promise<Why> {
  const [fact] = await store.getFacts(bankId, [id]);
  if (!fact) throw notFoundOrDeleted('memory', id, await store.tombstoneOf(bankId, id, ['fact', 'observation']));
  if (fact.kind === 'observation') {
    const chain = await evidenceChain(store, bankId, id);
    const stale = (await staleObservations(store, bankId, [chain.observation])).has(id);
    return {
      id,
      kind: 'observation',
      observation: chain.observation,
      stale,
      supporting: chain.supporting,
      contradicting: chain.contradicting,
      history: await store.historyOf(bankId, id),
    };
  }
  const [replacement] = fact.supersededBy ? await store.getFacts(bankId, [fact.supersededBy]) : [];
  const sources = await sourcesOf(store, bankId, replacement ? [fact, replacement] : [fact]);
  return {
    id,
    kind: fact.kind,
    fact,
    source: sources.get(fact.id) ?? null,
    supersededBy: replacement ? { fact: replacement, source: sources.get(replacement.id) ?? null } : null,
    observations: await observationsOfFact(store, bankId, id),
  };
}
