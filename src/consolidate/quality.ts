// Checks a person would make of an observation, as code, so a benchmark can count them: does all its evidence
// share a subject other than the speakers (one person or thing, a compound thing, or one attribute of someone),
// and does its text read as a statement (no name followed by a base-form verb, no unresolved "you" or "I", no
// greeting or thanks). The consolidation benchmark reports the share of observations that pass each.
import nlp from 'compromise';
import type { Fact } from '../core/index.ts';
import { CAUSATIVE, hasUnresolvedYou } from '../text/index.ts';
import { Subjects } from './subject.ts';

/**
 * True when all the evidence facts share a subject other than the speakers: one entity, one compound thing, one
 * named subject ("Dev ...", "Art ..."), or one attribute of one subject (read as the consolidators read them).
 */
export function sharesSubject(evidence: Fact[], entityNames: ReadonlyMap<string, string>, speakers: ReadonlySet<string>): boolean {
  return evidence.length > 0 && new Subjects(entityNames, evidence, speakers).sharedBy(evidence).size > 0;
}

const GREETING = /^(?:hi|hey|hello|thanks|thank you|congrats|congratulations|bye|good night|wow|yeah|oh)\b/i;
/**
 * A name followed by a verb in its base form ("Maya live", "Melanie am"): first person rewritten without
 * agreement. The text is tagged as a whole, so a noun after a name ("LGBT pride") is not read as a verb, and an
 * object before a bare verb ("made Caroline feel") is not an error.
 */
function nameWithBaseVerb(text: string, names: readonly string[]): boolean {
  const lastWords = new Set(names.map((n) => n.split(/\s+/).at(-1)?.toLowerCase() ?? '').filter(Boolean));
  const terms = (nlp(text).json() as Array<{ terms: Array<{ text: string; tags: string[] }> }>).flatMap((s) => s.terms);
  for (let k = 0; k + 1 < terms.length; k++) {
    if (!lastWords.has(terms[k].text.toLowerCase().replace(/[^\p{L}'’-]/gu, ''))) continue;
    if ((k > 0 && CAUSATIVE.test(terms[k - 1].text)) || /[,;:.!?]$/.test(terms[k].text)) continue;
    const next = terms[k + 1];
    const word = next.text.toLowerCase();
    if (word === 'am' || word === 'are') return true;
    const tags = new Set(next.tags);
    if (
      tags.has('Verb') &&
      tags.has('Infinitive') &&
      !tags.has('Modal') &&
      !tags.has('PastTense') &&
      !tags.has('Gerund') &&
      !word.endsWith('s')
    )
      return true;
  }
  return false;
}

export interface GrammarReport {
  ok: boolean;
  problems: string[];
}

/** The grammar rule set: name + base-form verb, unresolved second or first person, a greeting kept as a belief. */
export function grammarCheck(text: string, names: readonly string[]): GrammarReport {
  const problems: string[] = [];
  const unquoted = text.replace(/"[^"]*"|“[^”]*”/g, ' ');
  if (nameWithBaseVerb(unquoted, names)) problems.push('name + base-form verb');
  if (hasUnresolvedYou(unquoted)) problems.push('unresolved you/your');
  if (/\b(I|I'm|I've|my|me|myself)\b/.test(unquoted)) problems.push('unresolved I/my/me');
  if (unquoted.split(/(?<=[.!?])\s+|;\s+|Before that:\s*/).some((s) => GREETING.test(s.trim()))) problems.push('greeting or thanks');
  return { ok: problems.length === 0, problems };
}
