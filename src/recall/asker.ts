// A question in the first person ("What deadline did I set?", "How should I store my tokens?") asks about the
// asker's own memory: what the user said, decided and prefers. In a chat with an agent the agent's replies
// repeat the user's words at length (explanations, code, restated plans), so by words and by meaning they often
// rank above the one message that holds the answer. For such questions the agent's own turns (facts of kind
// `experience`) keep only a share of their score; everything else keeps its order.
// A question about one of the conversation's speakers by name ("What activities does Melanie partake in?") is
// answered, nearly always, by that speaker's own turns; the other side's replies ("You'd love pottery, Mel!") share
// its words and its name, so they too keep only a share of their score. So do the named speaker's own words to the
// other side that say nothing of the speaker: questions and remarks to "you" ("Have you found any activities that
// make you feel the same way?", "Love seeing your dedication to helping others") are about the listener.
import type { Entity, Fact } from '../core/index.ts';
import { nameKey } from '../text/index.ts';
import { asksQuestion } from './followups.ts';
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
export function lowerAgentTurns<T extends { id: string; score: number }>(
  candidates: T[],
  facts: Map<string, Pick<Fact, 'kind'>>,
  weight: number,
): T[] {
  if (weight === 1) return candidates;
  return reweigh(candidates, facts, (fact) => (fact.kind === 'experience' ? weight : 1));
}

/**
 * The one person the query names who speaks in `facts` (a speaker whose name is the entity's name or an alias),
 * or null when it names no such person or more than one.
 */
export function namedSpeaker(named: Entity[], facts: Iterable<Fact>): Entity | null {
  const keyOf = new Map<string, string>();
  for (const e of named) if (e.type === 'person') for (const n of [e.name, ...e.aliases]) keyOf.set(nameKey(n), e.id);
  if (keyOf.size === 0) return null;
  const speaking = new Set<string>();
  for (const f of facts) {
    const id = f.speaker === null ? undefined : keyOf.get(nameKey(f.speaker));
    if (id !== undefined) speaking.add(id);
  }
  if (speaking.size !== 1) return null;
  const [id] = speaking;
  return named.find((e) => e.id === id) ?? null;
}

const SECOND_PERSON = /\b(?:you|your|yours|yourself|yourselves)\b/i;
const FIRST_PERSON_ANY = /\b(?:i|i['’](?:m|ve|d|ll)|me|my|mine|myself|we|we['’](?:re|ve|d|ll)|us|our|ours|ourselves)\b/i;

/**
 * Whether a fact its speaker said is about the listener: a question, or a remark to "you", that says nothing of the
 * speaker (no first person, and not the speaker's name, which extraction writes in place of "I").
 */
export function aboutListener(text: string, speakerNames: string[]): boolean {
  if (!asksQuestion(text) && !SECOND_PERSON.test(text)) return false;
  if (FIRST_PERSON_ANY.test(text)) return false;
  const words = ` ${nameKey(text)} `;
  return !speakerNames.some((n) => {
    const key = nameKey(n);
    return key.length > 0 && words.includes(` ${key} `);
  });
}

/**
 * Candidates whose fact another speaker said (a speaker other than `speaker`, compared by name), or `speaker` said
 * about the listener (aboutListener), keep `weight` of their score, the list re-sorted (stable on ties); facts of
 * no speaker and facts not in `facts` keep theirs.
 */
export function lowerOtherSpeakers<T extends { id: string; score: number }>(
  candidates: T[],
  facts: Map<string, Fact>,
  speaker: Entity,
  weight: number,
): T[] {
  if (weight === 1) return candidates;
  const names = [speaker.name, ...speaker.aliases];
  const keys = new Set(names.map(nameKey));
  return reweigh(candidates, facts, (fact) => {
    if (fact.speaker === null) return 1;
    if (!keys.has(nameKey(fact.speaker))) return weight;
    return aboutListener(fact.text, names) ? weight : 1;
  });
}
