// A question in the first person ("What deadline did I set?", "How should I store my tokens?") asks about the
// asker's own memory: what the user said, decided and prefers. In a chat with an agent the agent's replies
// repeat the user's words at length (explanations, code, restated plans), so by words and by meaning they often
// rank above the one message that holds the answer. For such questions the agent's own turns (facts of kind
// `experience`) keep only a share of their score; everything else keeps its order.
import type { Fact } from '../core/index.ts';
import { reweigh } from './reweigh.ts';

const FIRST_PERSON = /\b(i|i['’](?:m|ve|d|ll)|me|my|mine|myself)\b/i;

/** A request for a summary ("summarize", "give me an overview of ..."): what the agent explained is part of it. */
const SUMMARY = /\b(?:summar(?:y|ies|i[sz]e)|overview|recap|sum up)\b/i;

/** Whether the query asks, in the first person singular, about the asker's own words (a summary request does not). */
export function isFirstPerson(query: string): boolean {
  return FIRST_PERSON.test(query) && !SUMMARY.test(query);
}

/**
 * Candidates whose fact is the agent's own (`experience`) keep `weight` of their score, the list re-sorted
 * (stable on ties). Candidates whose fact is not in `facts` keep their score.
 */
export function lowerAgentTurns<T extends { id: string; score: number }>(candidates: T[], facts: Map<string, Fact>, weight: number): T[] {
  if (weight === 1) return candidates;
  return reweigh(candidates, facts, (fact) => (fact.kind === 'experience' ? weight : 1));
}
