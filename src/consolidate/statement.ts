// Single-valued statements and when a newer one replaces an older: "X lives in A" then "X lives in B", "X works
// at A" then "X no longer works at A", "X's favorite color is red" then "... is blue". A statement is a subject,
// a predicate (verb lemma + preposition) and an object. Only predicates that hold one value at a time count:
// a present-tense state verb followed by in/at/for (lives in, works at), a few passive states (married to, based
// in), a possessive attribute with "is", and moves (moved to B = lives in B). "Likes", "visited", "has", "results
// in", "looks for" are never single-valued. The subject must stand for someone or something that stays the same
// between messages: "This results in ..." or "If you are looking for ..." in two answers are about different things.
import nlp from 'compromise';
import { isStopword, nameKey } from '../text/index.ts';
import { overlap, stemSet } from './stems.ts';

export interface Statement {
  /**
   * Who or what the statement is about (an entity id when the caller could resolve it); for a possessive
   * attribute, the owner and the attribute ("<maya>|manager"), so "Maya's manager" and "Maya's favourite food"
   * never replace each other, and "Maya's sister Chloe" is about Chloe, not Maya.
   */
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
/** Verbs that, with in/at/for, say where someone is or belongs: one place or employer at a time. */
const STATE_VERBS = new Set(['live', 'work', 'stay', 'study', 'teach', 'reside', 'play', 'intern', 'serve', 'remain', 'settle']);
/**
 * Subjects that name nothing lasting: demonstratives and impersonal pronouns point at whatever the message was
 * about ("This results in ...", "It is based in ..."), and "you" in an answer is anyone reading it.
 */
const UNANCHORED_SUBJECT =
  /^(?:this|that|these|those|it|there|here|which|what|who|whoever|one|you|everything|something|anything|nothing|everyone|someone|anyone|nobody|all|each|both)\b/i;
/** A clause opened by a subordinator is a condition or a reason, not a statement: "If you are looking for ...". */
const SUBORDINATE =
  /^(?:if|when|whenever|because|although|though|while|since|unless|once|as|after|before|until|where|wherever|whether|so that)\b/i;
const PASSIVE_STATES = new Set(['married', 'engaged', 'based', 'located', 'employed', 'stationed', 'enrolled', 'headquartered']);
/** Events that set a state: moving to B means living in B. */
const MOVES: Record<string, string> = { 'move to': 'live in', 'relocate to': 'live in' };
const PRESENT_FORMS = new Set(['simple-present', 'auxiliary-present', 'present-perfect', 'passive-present', 'present-progressive']);
/** Where an object phrase ends. */
const OBJECT_END =
  /\s*(?:[,;:(]|\s(?:as|with|since|because|and|but|for|in|at|on|from|until|when|while|after|before|during|by|anymore|any more|now|again|this|last|next)\b|[.!?]\s*$)/i;

interface VerbJson {
  text: string;
  offset: { start: number; length: number };
  verb: { infinitive: string; root: string; negative: boolean; preAdverbs: string[]; grammar: { form: string; copula?: boolean } };
}

/** Discourse words before a subject ("Actually", "Hi!", "So") and adverbs after it ("now", "still"). */
const LEADING =
  /^(?:(?:actually|so|well|and|but|now|also|then|anyway|oh|ok|okay|yeah|yes|hi|hey|hello|wow|thanks|guess what|by the way)\b[\s,!.:;-]*)+/i;
const TRAILING = /(?:\s+(?:now|still|also|currently|really|just|actually|finally|already|recently|officially))+$/i;
/** Words that qualify an attribute without changing which attribute it is ("new manager" is the manager). */
const QUALIFIERS = new Set(['new', 'current', 'old', 'former', 'latest', 'previous', 'here', 'now', 'present', 'actual', 'real', 'main']);

/**
 * The key of a statement's subject: a name resolved by the caller; a possessive "X's Y" is about a name Y ends
 * with ("Maya's sister Chloe": Chloe), else about X's attribute Y ("Maya's new manager at work": <X>|manager).
 */
export function subjectKey(subjectText: string, resolve: (name: string) => string): string {
  // "My X" is the speaker's X, as "Maya's X" is Maya's: the owner is "I", which the caller resolves to the speaker.
  const text = subjectText
    .replace(LEADING, '')
    .replace(TRAILING, '')
    .trim()
    .replace(/^my\s+/i, 'I’s ');
  const possessive = /^(.+?)['’]s?\s+(.+)$/u.exec(text);
  if (possessive && /['’]/.test(text)) {
    const [, owner, rest] = possessive;
    const head = rest.split(/\s+(?:at|in|of|for|from|on|with|who|that)\s+/i)[0];
    const name = /(\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*)*)$/u.exec(head.replace(/^\p{Lu}/u, (c) => c.toLowerCase()));
    if (name) return resolve(name[1]);
    const attribute = [...stemSet(head)]
      .filter((w) => !QUALIFIERS.has(w))
      .sort()
      .join(' ');
    return `${resolve(owner)}|${attribute}`;
  }
  return resolve(text);
}

/** Parses the first clause of a fact into a single-valued statement, or null when it is not one. */
export function parseStatement(text: string, resolveSubject: (subject: string) => string = nameKey): Statement | null {
  return analyse(text, resolveSubject).statement;
}

export interface Analysis {
  statement: Statement | null;
  /**
   * The compound things a text talks about ("the LLM search feature", "a charity race", "the support group"):
   * each pair of neighbouring words of a noun phrase, as stems ("llm search", "search featur"), so "the LLM
   * search feature" and "LLM search engagement" meet on "llm search". Names, times, pronouns and numbers are not
   * things; a bare one-word noun ("job", "food") is too general to be one.
   */
  things: string[];
  /**
   * Whom or what the first clause is about when its subject is a name or a named topic ("Dev builds puzzles",
   * "Art can be healing"), resolved like a statement's subject.
   */
  named: string | null;
}

interface TermJson {
  text: string;
  tags: string[];
}

const NOT_THING = ['Pronoun', 'Date', 'Possessive', 'Person', 'Value', 'Place', 'Determiner'];

function thingsOf(terms: TermJson[]): string[] {
  const out = new Set<string>();
  let run: string[] = [];
  /** Length of the run up to its last noun: trailing adjectives ("mental health last") are not part of a thing. */
  let upToNoun = 0;
  const close = (): void => {
    const words = run.slice(0, upToNoun).flatMap((w) => [...stemSet(w)]);
    for (let k = 1; k < words.length; k++) out.add(`${words[k - 1]} ${words[k]}`);
    run = [];
    upToNoun = 0;
  };
  for (const t of terms) {
    const tags = new Set(t.tags);
    const part = (tags.has('Noun') || tags.has('Adjective')) && !NOT_THING.some((x) => tags.has(x));
    if (!part) {
      close();
      continue;
    }
    run.push(t.text);
    if (tags.has('Noun')) upToNoun = run.length;
    if (/[,;:.!?]$/.test(t.text)) close();
  }
  close();
  return [...out];
}

/** Capitalised words that stand for someone without naming them. */
const PRONOUNS = new Set(
  'i it its we they he she you this that these those here there everyone everybody someone somebody nobody everything something nothing one all both each mine ours'.split(
    ' ',
  ),
);

/**
 * One to three capitalised nouns, none of them a pronoun ("It", "We're") nor another part of speech ("Glad
 * Caroline"): a name ("Dev", "Ines Costa") or a named topic ("Art", "Pets").
 */
function isName(text: string, terms: TermJson[]): boolean {
  if (!/^\p{Lu}[\p{L}'’-]*(?:\s+\p{Lu}[\p{L}'’-]*){0,2}$/u.test(text)) return false;
  const words = text.split(/\s+/);
  if (words.some((w) => PRONOUNS.has(w.toLowerCase().replace(/['’].*$/, '')) || isStopword(w.replace(/['’].*$/, '')))) return false;
  return words.every((w, k) => {
    const tags = terms[k]?.text.replace(/[^\p{L}'’-]/gu, '') === w ? terms[k].tags : [];
    // A lone unknown name may be guessed an adjective ("Kemal plays"); an adjective before a name is not a name.
    return (tags.includes('Noun') || (words.length === 1 && tags.includes('Adjective'))) && !tags.includes('Pronoun');
  });
}

/** One NLP pass over a fact: its single-valued statement (if any) and the things it talks about. */
export function analyse(text: string, resolveSubject: (subject: string) => string = nameKey): Analysis {
  const doc = nlp(text);
  const terms = (doc.json() as Array<{ terms: TermJson[] }>).flatMap((s) => s.terms);
  const things = thingsOf(terms);
  const verbs = doc.verbs().json({ offset: true }) as VerbJson[];
  // A subject that opens the sentence is its first words; one after an opener ("Actually, ...") is not read.
  const subjectText = verbs[0]?.offset ? text.slice(0, verbs[0].offset.start).trim() : '';
  const named = isName(subjectText, terms) ? subjectKey(subjectText, resolveSubject) : null;
  return { statement: statementOf(text, verbs, resolveSubject), things, named };
}

function statementOf(text: string, verbs: VerbJson[], resolveSubject: (subject: string) => string): Statement | null {
  const v = verbs[0];
  if (!v?.offset) return null;
  const subjectText = text.slice(0, v.offset.start).trim().replace(TRAILING, '');
  const rest = text.slice(v.offset.start + v.offset.length).trim();
  if (!subjectText || !rest) return null;
  const bare = subjectText.replace(LEADING, '');
  if (SUBORDINATE.test(bare) || UNANCHORED_SUBJECT.test(bare)) return null;
  const { infinitive, root, grammar, preAdverbs } = v.verb;
  const negated = v.verb.negative || preAdverbs.includes('longer') || /\b(any ?more|no longer)\b/i.test(text);
  const form = grammar.form ?? '';
  const prep = /^([a-z]+)\b/i.exec(rest)?.[1]?.toLowerCase() ?? '';
  let predicate: string | null = null;
  let objectStart = rest;
  let current = PRESENT_FORMS.has(form);
  if (grammar.copula) {
    // "Alice's favorite color is blue": only an explicit attribute of someone is single-valued.
    if (/['’]s?\s+\S/.test(subjectText) || /\b(favou?rite|current)\b/i.test(subjectText)) predicate = 'be';
  } else if (form === 'passive-present' && PASSIVE_STATES.has(root.toLowerCase()) && prep) {
    predicate = `be ${root.toLowerCase()} ${prep}`;
    objectStart = rest.slice(prep.length);
  } else if (MOVES[`${infinitive} ${prep}`]) {
    predicate = MOVES[`${infinitive} ${prep}`];
    objectStart = rest.slice(prep.length);
    current = !negated;
  } else if (FUNCTIONAL_PREPOSITIONS.has(prep) && STATE_VERBS.has(infinitive) && !form.startsWith('passive')) {
    predicate = `${infinitive} ${prep}`;
    objectStart = rest.slice(prep.length);
  }
  if (!predicate) return null;
  const objectText = objectStart.trim().split(OBJECT_END)[0].trim();
  const object = stemSet(objectText);
  if (object.size === 0) return null;
  return { subject: subjectKey(subjectText, resolveSubject), predicate, object, objectText, negated, current };
}

/** True when `newer` (told later) replaces `older`: same subject and predicate, and a different value. */
export function replaces(newer: Statement, older: Statement): boolean {
  if (!newer.current || newer.subject !== older.subject || newer.predicate !== older.predicate) return false;
  const shared = overlap(newer.object, older.object) > 0;
  if (newer.negated !== older.negated) return shared;
  if (newer.negated) return false;
  return !shared;
}
