// How the offline answerer orders what recall found for a question: a question about one attribute of someone
// ("Where does Maya live now?", "Who is Maya's manager?") is answered by the current statement of that
// attribute, newest first; otherwise by how much of the question a memory covers, a short memory before a long
// one that covers as much. A memory that shares no word with the question is not relevant to it.
import { stemSet, storyTime } from '../consolidate/index.ts';
import { askedAttribute, statesAttribute } from '../recall/index.ts';
import type { Memory } from './types.ts';

/** Question words and fillers that say nothing about what is asked. */
const ASKING = stemSet('what which who whom whose where when why how now currently today ever still tell know remember anything something');

/**
 * Share of the question's content words a memory covers, each word weighted by how rare it is among the memories
 * found: the name every memory shares ("Alice" in a bank about Alice) counts for less than the word asked about.
 */
function coverage(question: ReadonlySet<string>, words: ReadonlySet<string>, weight: ReadonlyMap<string, number>): number {
  let total = 0;
  let covered = 0;
  for (const w of question) {
    const x = weight.get(w) ?? 0;
    total += x;
    if (words.has(w)) covered += x;
  }
  return total ? covered / total : 0;
}

export interface Ranked {
  /** Most relevant first; memories that share too little with the question are left out. */
  memories: Memory[];
}

/** A memory covering less than this share of the best one's coverage is not about the question. */
const KEEP_SHARE = 0.5;

/** Orders the memories recall found (observations and facts, each list in recall order) for the question. */
export function rankForQuestion(query: string, observations: Memory[], facts: Memory[]): Ranked {
  const question = new Set([...stemSet(query)].filter((w) => !ASKING.has(w)));
  const asked = askedAttribute(query);
  // An observation that only repeats a fact's text adds nothing: the fact is quoted (and cited) instead.
  const factTexts = new Set(facts.map((f) => f.text.trim()));
  const found = [...observations.filter((o) => !factTexts.has(o.text.trim())), ...facts];
  const words = found.map((m) => stemSet(m.text));
  const weight = new Map<string, number>();
  for (const w of question) weight.set(w, Math.log(1 + found.length / Math.max(1, words.filter((ws) => ws.has(w)).length)));
  const scored = found.map((m, order) => {
    const cover = coverage(question, words[order], weight);
    const answers = asked ? statesAttribute(m.text, asked) : false;
    // A long memory covering as much as a short one comes after it: the short one is about the question.
    return { m, order, answers, cover, score: cover - Math.min(0.2, words[order].size / 400) };
  });
  const best = Math.max(0, ...scored.map((s) => s.cover));
  const related = scored.filter((s) => s.answers || (s.cover > 0 && s.cover >= KEEP_SHARE * best));
  related.sort(
    (a, b) =>
      Number(b.answers) - Number(a.answers) ||
      (a.answers && b.answers ? storyTime(b.m).localeCompare(storyTime(a.m)) : 0) ||
      b.score - a.score ||
      a.order - b.order,
  );
  return { memories: related.map((s) => s.m) };
}
