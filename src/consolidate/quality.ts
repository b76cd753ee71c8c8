// Checks a person would make of an observation, as code, so a benchmark can count them: does all its evidence
// share a subject other than the speakers (one person or thing, a compound thing, or one attribute of someone),
// and does its text read as a statement (no name followed by a base-form verb, no unresolved "you" or "I", no
// greeting or thanks). The consolidation benchmark reports the share of observations that pass each.
import nlp from 'compromise';
import type { Fact } from '../core/types.ts';
import { hasUnresolvedYou } from '../text/person.ts';
import { nameKey } from '../text/words.ts';
import { analyse } from './statement.ts';

/**
 * True when every evidence fact names one entity other than the speakers, or all talk about one compound thing,
 * or all set one attribute of one subject (read the same way the offline consolidator reads statements).
 */
export function sharesSubject(evidence: Fact[], entityNames: ReadonlyMap<string, string>, speakers: ReadonlySet<string>): boolean {
  if (evidence.length === 0) return false;
  const isSpeaker = (id: string): boolean => {
    const key = nameKey(entityNames.get(id) ?? '');
    return speakers.has(key) || speakers.has(key.split(' ')[0]);
  };
  const sets = evidence.map((f) => {
    const about = new Set(f.entities.filter((e) => !isSpeaker(e)).map((e) => `e:${e}`));
    const { statement, things } = analyse(f.text, (name) => {
      const key = nameKey(name);
      return f.entities.find((e) => nameKey(entityNames.get(e) ?? '') === key || nameKey(entityNames.get(e) ?? '').split(' ')[0] === key) ?? key;
    });
    for (const t of things) about.add(`t:${t}`);
    if (statement) about.add(`a:${statement.subject}|${statement.predicate}`);
    return about;
  });
  return [...sets[0]].some((x) => sets.every((s) => s.has(x)));
}

const GREETING = /^(?:hi|hey|hello|thanks|thank you|congrats|congratulations|bye|good night|wow|yeah|oh)\b/i;
const baseVerbCache = new Map<string, boolean>();

/** A name followed by a verb in its base form ("Maya live", "Melanie am"): first person rewritten without agreement. */
function nameWithBaseVerb(text: string, names: readonly string[]): boolean {
  for (const name of names) {
    if (!name) continue;
    const re = new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+([a-z]+)\\b`, 'g');
    for (const m of text.matchAll(re)) {
      const word = m[1];
      if (word === 'am' || word === 'are') return true;
      let base = baseVerbCache.get(word);
      if (base === undefined) {
        // Tagged after a third-person name: a base-form present verb there is an agreement error.
        const tags = new Set<string>(((nlp(`She ${word} it`).terms().json() as Array<{ terms: Array<{ tags: string[] }> }>)[1]?.terms?.[0]?.tags) ?? []);
        base = tags.has('Infinitive') && !tags.has('Modal') && !tags.has('PastTense') && word !== 'be';
        baseVerbCache.set(word, base);
      }
      if (base) return true;
    }
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
