// The consolidator port: given a bank (its mission), newly retained facts and the observations related to
// them (with their evidence), decide what changes. The offline consolidator (default) and the LLM consolidator
// both implement it; the worker turns the decisions into one atomic store write.
import type { Bank, Evidence, EvidenceRole, Fact, Observation } from '../core/index.ts';

/** An existing observation, loaded as context, with the evidence facts the loader could afford. */
export interface RelatedObservation {
  observation: Observation;
  /** Every evidence link of the observation (ids and roles). */
  evidence: Evidence[];
  /** The evidence facts themselves: the first one and the most recent ones (a bounded window for large observations). */
  facts: Fact[];
}

export interface ConsolidationInput {
  bank: Bank;
  /** The facts to consolidate, oldest first. Every one of them leaves the queue when the decisions are applied. */
  facts: Fact[];
  /** Related observations, most related first (at most the configured batch size). */
  observations: RelatedObservation[];
  /** Other stored facts about the same entities (not observations), newest first: candidates for supersession. */
  relatedFacts: Fact[];
  /** Stored vectors of the facts and observations above, where there are any. */
  vectors: ReadonlyMap<string, Float32Array>;
  /** Entity id -> name, for every entity the facts and observations above mention. */
  entityNames: ReadonlyMap<string, string>;
  /** Record time of this run (ISO). */
  now: string;
  /** Awaited between units of CPU work, where a consolidator has such units (the thread's loop waits there while the
   * API is busy). */
  pause?: () => Promise<void>;
}

/** Every fact a consolidation input shows: the new ones, the related ones and the observations' evidence. */
export const factsInView = (input: ConsolidationInput): Fact[] => [
  ...input.facts,
  ...input.relatedFacts,
  ...input.observations.flatMap((r) => r.facts),
];

/**
 * What to do. `create` names its new observation by `ref` (unique within one answer) so later decisions of the
 * same answer can update it; `update.observationId` is an existing observation's id or such a ref.
 * Fact ids in supports/contradicts may be any fact of the input (new, related, or evidence).
 */
export type ConsolidationDecision =
  | { action: 'create'; ref: string; text: string; supports: string[]; contradicts: string[]; facet?: string }
  | {
      action: 'update';
      observationId: string;
      /** New text, or null to keep the current one (the facts only add evidence). */
      text: string | null;
      reason: 'supported' | 'refined' | 'contradicted';
      supports: string[];
      contradicts: string[];
    }
  | { action: 'supersede'; factId: string; by: string };

/** The evidence an observation keeps after some of its facts were deleted. */
export interface RemainingEvidence {
  fact: Fact;
  role: EvidenceRole;
}

export interface Consolidator {
  readonly name: string;
  consolidate(input: ConsolidationInput): Promise<ConsolidationDecision[]>;
  /**
   * The text an observation should have when only `evidence` is left (after deletions). It must be built from
   * that evidence alone: nothing of the deleted facts may survive in it.
   */
  resynthesize(bank: Bank, observation: Observation, evidence: RemainingEvidence[]): Promise<string>;
}
