// Standing instructions and preferences: sentences in which someone tells the agent how to answer from now on
// ("Always include a code example when I ask about async errors", "Never suggest AWS") or states what they
// prefer ("I prefer Android phones", "I'd rather pay monthly"). They apply to later requests that share no words
// with them, so recall looks them up by meaning for every question instead of waiting for a keyword match.
import type { Stance } from '../core/index.ts';

export type { Stance };
export const STANCES: readonly Stance[] = ['instruction', 'preference'];

const INSTRUCTION =
  /^(?:(?:and|so|also|but)\s+)?(?:please\s+)?(?:always|never|make sure (?:to|you)|remember to|don['’]t ever|do not ever)\b|\bwhen(?:ever)? i ask (?:you )?(?:about|for)\b|\bfrom now on\b/i;
const PREFERENCE =
  /\bi\s+(?:really\s+|strongly\s+|generally\s+|usually\s+|much\s+|also\s+)?(?:prefer(?:red)?|favou?r(?:ed)?|prioriti[sz]e[ds]?)\b|\bi['’]d\s+(?:much\s+)?(?:rather|prefer)\b|\bi\s+would\s+(?:much\s+)?(?:rather|prefer)\b|\bmy\s+(?:strong\s+)?preference\b/i;

/** Words that, just before "I prefer", make it a question or someone else's advice ("should I prioritize", "Ronald
 * suggested I prioritize", "wonder whether I'd rather"): not the speaker's preference. */
const NOT_STATED =
  /\b(?:should|shall|could|would|can|do|did|must|suggest(?:s|ed)?|recommend(?:s|ed)?|advise[ds]?|told|whether|if|wonder)\s+(?:\w+\s+)?$/i;

/** Whether the sentence (in its speaker's own words) is a standing instruction, a preference, or neither. */
export function stanceOf(sentence: string): Stance | null {
  const s = sentence.trim();
  if (INSTRUCTION.test(s)) return 'instruction';
  for (const m of s.matchAll(new RegExp(PREFERENCE.source, 'gi'))) {
    if (!NOT_STATED.test(s.slice(Math.max(0, m.index - 40), m.index))) return 'preference';
  }
  return null;
}
