// Single-valued statements and when a newer one replaces an older: "X lives in A" then "X lives in B", "X works
// at A" then "X no longer works at A", "X's favorite color is red" then "... is blue". A statement is a subject,
// a predicate (verb lemma + preposition) and an object. Only predicates that hold one value at a time count:
// a present-tense verb followed by in/at/for, a few passive states (married to, based in), a possessive
// attribute with "is", and moves (moved to B = lives in B). "Likes", "visited", "has" are never single-valued.
import nlp from 'compromise';
import { nameKey } from '../text/words.ts';
import { overlap, stemSet } from './stems.ts';

export interface Statement {
  /** Normalized subject (an entity id when the caller could resolve it). */
  subject: string;
  /** e.g. 'live in', 'work at', 'be married to', 'be'. */
  predicate: string;
  /** Stems of the object's content words. */
  object: Set<string>;
  objectText: string;
  negated: boolean;
  /** States what holds now (present tense, or a move), so it can replace an older statement. */
  current: boolean;
}

const FUNCTIONAL_PREPOSITIONS = new Set(['in', 'at', 'for']);
const PASSIVE_STATES = new Set(['married', 'engaged', 'based', 'located', 'employed', 'stationed', 'enrolled', 'headquartered']);
/** Events that set a state: moving to B means living in B. */
const MOVES: Record<string, string> = { 'move to': 'live in', 'relocate to': 'live in' };
const PRESENT_FORMS = new Set(['simple-present', 'auxiliary-present', 'present-perfect', 'passive-present', 'present-progressive']);
/** Where an object phrase ends. */
const OBJECT_END = /\s*(?:[,;:(]|\s(?:as|with|since|because|and|but|for|in|at|on|from|until|when|while|after|before|during|by|anymore|any more|now|again|this|last|next)\b|[.!?]\s*$)/i;

interface VerbJson {
  text: string;
  offset: { start: number; length: number };
  verb: { infinitive: string; root: string; negative: boolean; preAdverbs: string[]; grammar: { form: string; copula?: boolean } };
}

/** Parses the first clause of a fact into a single-valued statement, or null when it is not one. */
export function parseStatement(text: string, resolveSubject: (subject: string) => string = nameKey): Statement | null {
  const verbs = nlp(text).verbs().json({ offset: true }) as VerbJson[];
  const v = verbs[0];
  if (!v?.offset) return null;
  const subjectText = text.slice(0, v.offset.start).trim();
  const rest = text.slice(v.offset.start + v.offset.length).trim();
  if (!subjectText || !rest) return null;
  const { infinitive, root, grammar, preAdverbs } = v.verb;
  const negated = v.verb.negative || preAdverbs.includes('longer') || /\b(any ?more|no longer)\b/i.test(text);
  const form = grammar.form ?? '';
  const prep = /^([a-z]+)\b/i.exec(rest)?.[1]?.toLowerCase() ?? '';
  let predicate: string | null = null;
  let objectStart = rest;
  let current = PRESENT_FORMS.has(form);
  if (grammar.copula) {
    // "Alice's favorite color is blue": only an explicit attribute of someone is single-valued.
    if (/['’]s\s+\S/.test(subjectText) || /\b(favou?rite|current)\b/i.test(subjectText)) predicate = 'be';
  } else if (form === 'passive-present' && PASSIVE_STATES.has(root.toLowerCase()) && prep) {
    predicate = `be ${root.toLowerCase()} ${prep}`;
    objectStart = rest.slice(prep.length);
  } else if (MOVES[`${infinitive} ${prep}`]) {
    predicate = MOVES[`${infinitive} ${prep}`];
    objectStart = rest.slice(prep.length);
    current = !negated;
  } else if (FUNCTIONAL_PREPOSITIONS.has(prep) && !form.startsWith('passive') && !infinitive.includes(' ')) {
    predicate = `${infinitive} ${prep}`;
    objectStart = rest.slice(prep.length);
  }
  if (!predicate) return null;
  const objectText = objectStart.trim().split(OBJECT_END)[0].trim();
  const object = stemSet(objectText);
  if (object.size === 0) return null;
  return { subject: resolveSubject(subjectText), predicate, object, objectText, negated, current };
}

/** True when `newer` (told later) replaces `older`: same subject and predicate, and a different value. */
export function replaces(newer: Statement, older: Statement): boolean {
  if (!newer.current || newer.subject !== older.subject || newer.predicate !== older.predicate) return false;
  const shared = overlap(newer.object, older.object) > 0;
  if (newer.negated !== older.negated) return shared;
  if (newer.negated) return false;
  return !shared;
}
