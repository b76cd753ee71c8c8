// Questions about one attribute of someone ("Where does Maya live now?", "Who is Maya's manager?", "Who is Tom
// married to?") and the memories that answer them: those whose (leading) statement sets that attribute of that
// subject now, read the way the consolidator reads statements, so the newest value can be put first.
import { parseStatement, subjectKey, statedPart, storyTime } from '../consolidate/index.ts';
import type { Fact } from '../core/index.ts';
import { nameKey } from '../text/index.ts';

export interface AskedAttribute {
  subject: string;
  predicates: string[];
  /** Words a text must hold to state the attribute: checked before the costly parse, on every candidate. */
  cue: RegExp;
}

const VERB_CUES: Record<string, RegExp> = {
  live: /\b(liv|mov|reloc|based|located)/i,
  stay: /\b(liv|mov|reloc|stay)/i,
  work: /\b(work|employ)/i,
  study: /\b(stud|enrol)/i,
};

const VERB_PREDICATES: Record<string, string[]> = {
  live: ['live in', 'live at', 'be based in', 'be located in'],
  stay: ['live in', 'stay in', 'stay at'],
  work: ['work at', 'work for', 'work in', 'be employed at', 'be employed by'],
  study: ['study at', 'study in', 'be enrolled at', 'be enrolled in'],
};

/** The attribute a question asks for, read the way statements are read (see consolidate/statement.ts). */
export function askedAttribute(query: string): AskedAttribute | null {
  const q = query.trim().replace(/[?.!\s]+$/, '');
  const where = /^where\s+(?:does|did|do|is)\s+(.+?)\s+(live|stay|work|study)(?:ing)?\b/i.exec(q);
  if (where)
    return { subject: nameKey(where[1]), predicates: VERB_PREDICATES[where[2].toLowerCase()], cue: VERB_CUES[where[2].toLowerCase()] };
  const attribute = /^(?:who|what|which)\s+(?:is|are|was)\s+(.+?['’]s?\s+.+?)(?:\s+(?:now|currently|these days))?$/i.exec(q);
  if (attribute) {
    const subject = subjectKey(attribute[1], nameKey);
    // The attribute's stems ("manag" of manager) stand in any text that names it.
    const stems = subject.split('|')[1]?.split(' ').filter(Boolean) ?? [];
    return { subject, predicates: ['be'], cue: new RegExp(stems.map((w) => `(?=.*\\b${w.replace(/[^a-z0-9]/g, '')})`).join(''), 'is') };
  }
  const married = /^who\s+is\s+(.+?)\s+(married|engaged)\s+to$/i.exec(q);
  if (married)
    return { subject: nameKey(married[1]), predicates: [`be ${married[2].toLowerCase()} to`], cue: new RegExp(`\\b${married[2]}`, 'i') };
  return null;
}

/** True when the text (an observation's: its leading, newest sentence) states the asked attribute as it is now. */
export function statesAttribute(text: string, asked: AskedAttribute): boolean {
  const lead = statedPart(text).split(/(?<=[.!?])\s+|\s+\(\d{4}-\d{2}(?:-\d{2})?\)/)[0];
  // The statement's subject is named in it, and its attribute or verb too: most texts are ruled out unparsed.
  if (!nameKey(lead).includes(asked.subject.split('|')[0]) || !asked.cue.test(lead)) return false;
  const s = parseStatement(lead);
  return !!s && s.current && !s.negated && s.subject === asked.subject && asked.predicates.includes(s.predicate);
}

/**
 * Puts the candidates that state the asked attribute now first, the one told latest leading (stable otherwise).
 * Candidates whose fact is not in `facts` stay where they are.
 */
export function raiseAnswers<T extends { id: string; score: number }>(
  candidates: T[],
  facts: Map<string, Fact>,
  asked: AskedAttribute | null,
): T[] {
  if (!asked || candidates.length === 0) return candidates;
  const answering = candidates.filter((c) => {
    const f = facts.get(c.id);
    return f !== undefined && f.status === 'active' && statesAttribute(f.text, asked);
  });
  if (answering.length === 0) return candidates;
  answering.sort((a, b) => storyTime(facts.get(b.id)!).localeCompare(storyTime(facts.get(a.id)!)));
  const top = candidates[0].score;
  const raised = answering.map((c, i) => ({ ...c, score: top + (answering.length - i) * 1e-6 }));
  const chosen = new Set(answering);
  const rest = candidates.filter((c) => !chosen.has(c));
  return [...raised, ...rest];
}
