// Typed names in a sentence (people, places, organizations) read from compromise's lexicon and first tagging
// pass. Its post-tagging rules (half of compromise's time) and its match-based .people()/.places() are skipped:
// one walk over the tagged terms groups neighbouring terms of one type into a name. A sentence that cannot name
// anything (no capitalised word past its opener, no word the lexicon knows as a name) is not tagged at all.
import nlp from 'compromise';
import { isStopword } from '../text/index.ts';
import { remembered } from '../core/index.ts';

export type NameType = 'person' | 'place' | 'organization';

export interface TypedName {
  name: string;
  type: NameType;
}

interface Term {
  text: string;
  pre: string;
  post: string;
  tags?: Set<string>;
}

/** compromise's steps after tokenizing that the tags below depend on (no post-tagger, no chunker). */
const TAGGING = ['index', 'id', 'lexicon', 'preTagger', 'contractionTwo'];

function typeOf(tags: Set<string>): NameType | null {
  if (tags.has('Person') || tags.has('Honorific')) return 'person';
  if (tags.has('Place') || tags.has('Address')) return 'place';
  if (tags.has('Organization')) return 'organization';
  return null;
}

/** The text of neighbouring terms as written, without the punctuation before the first or after the last. */
function textOf(terms: Term[]): string {
  return terms.map((t, i) => (i > 0 ? t.pre : '') + t.text + (i < terms.length - 1 ? t.post : '')).join('');
}

/** The parts of compromise's model (nlp.model()) read here: its lexicon (word or phrase -> tag) and tag tree. */
interface LexiconModel {
  one?: {
    lexicon?: Record<string, string | string[]>;
    tagSet?: Record<string, { parents?: string[] }>;
  };
}

const NAME_ROOTS = ['Person', 'Honorific', 'Place', 'Address', 'Organization'];

/** Words and phrases compromise's lexicon tags as (parts of) names, and the longest such phrase per first word.
 * Null when the model does not have the expected shape: then every sentence is tagged. */
const lexiconNames = ((): { known: Record<string, unknown>; names: Set<string>; longest: Map<string, number> } | null => {
  const { lexicon, tagSet } = (nlp.model() as LexiconModel).one ?? {};
  if (!lexicon || !tagSet) return null;
  const isName = (tag: string): boolean => NAME_ROOTS.some((r) => tag === r || (tagSet[tag]?.parents ?? []).includes(r));
  const names = new Set<string>();
  const longest = new Map<string, number>();
  for (const [phrase, tags] of Object.entries(lexicon)) {
    if (!(Array.isArray(tags) ? tags : [tags]).some(isName)) continue;
    names.add(phrase);
    const words = phrase.split(' ');
    if (words.length > 1) longest.set(words[0], Math.max(longest.get(words[0]) ?? 0, words.length));
  }
  return names.size ? { known: lexicon, names, longest } : null;
})();

const FIRST_PERSON = /^I(?:['’](?:m|ve|ll|d))?$/;
/** What ends a sentence just before a word that opens the next one (inside one extracted sentence). */
const SENTENCE_END = /[.!?…]["'”’)\]]*\s+["'“‘([]*$/u;

/**
 * Whether the sentence may name someone or something: a capitalised word other than "I", "I'm"... and other than
 * a word opening a sentence that is a stopword or a word the lexicon knows as something else ("Wow", "You've",
 * "Thanks"); or a word or phrase, in any case, that the lexicon knows as a name ("harry", "new york").
 */
export function mayName(sentence: string): boolean {
  if (!lexiconNames) return true;
  const { known, names, longest } = lexiconNames;
  const words = [...sentence.matchAll(/[\p{L}\p{N}]+(?:['’]\p{L}+)*/gu)];
  const lower = words.map((m) => m[0].toLowerCase().replace(/['’]s$/, ''));
  for (let i = 0; i < words.length; i++) {
    const w = lower[i];
    if (names.has(w)) return true;
    for (let n = longest.get(w) ?? 0; n > 1; n--) if (names.has(lower.slice(i, i + n).join(' '))) return true;
    const word = words[i][0];
    if (!/^\p{Lu}/u.test(word) || FIRST_PERSON.test(word)) continue;
    const at = words[i].index ?? 0;
    const opens = i === 0 || SENTENCE_END.test(sentence.slice(Math.max(0, at - 6), at));
    const base = w.replace(/['’].*$/, ''); // "you've" -> "you"
    if (opens && (isStopword(base) || Object.hasOwn(known, w) || Object.hasOwn(known, base))) continue;
    return true;
  }
  return false;
}

/**
 * Whether a run of name terms written with capitals ends in a lower-case word: then it is no name but a word the
 * tagger takes for one (an acronym is an organization to it, "Japanese" a place) with the common noun after it
 * pulled in: "API design", "USCIS office", "LGBTQ community", "Japanese garden". A name written with capitals ends
 * in a capitalised word ("Bank of America", "Rio de Janeiro"); one written all in lower case ("new york", known to
 * the lexicon as a name) is kept. The words of such a run are still read as capitalised or shaped words, untyped.
 */
function endsInCommonNoun(run: Term[]): boolean {
  const last = run[run.length - 1].text;
  return run.length > 1 && /\p{Ll}/u.test(last) && !/\p{Lu}/u.test(last) && run.some((t) => /\p{Lu}/u.test(t.text));
}

/** typedNames' answers by text: a long conversation says a fifth of its sentences again (an answer quoted back, a
 * question asked twice), and compromise's tokenizing and tagging is most of the offline extractor's time. */
const namesByText = remembered((text: string): readonly TypedName[] => namesIn(text), 10_000);

/**
 * People, places and organizations in the text, in order. A name ends at a comma and, for people, after a
 * possessive ("Anna's"); a first name takes the capitalised proper nouns right after it as its surname
 * ("Sara Bareilles" even when the lexicon does not know "Bareilles").
 */
export function typedNames(text: string): TypedName[] {
  return namesByText(text).map((n) => ({ ...n }));
}

function namesIn(text: string): TypedName[] {
  const out: TypedName[] = [];
  if (!mayName(text)) return out;
  const docs = nlp.tokenize(text).compute(TAGGING).docs as Term[][];
  for (const terms of docs) {
    let run: Term[] = [];
    let runType: NameType | null = null;
    let firstName = false;
    const flush = (): void => {
      if (runType && run.length && !endsInCommonNoun(run)) out.push({ name: textOf(run), type: runType });
      run = [];
      runType = null;
      firstName = false;
    };
    for (const t of terms) {
      const tags = t.tags ?? new Set<string>();
      let type = typeOf(tags);
      // A surname the lexicon does not know: a capitalised proper noun right after a first name.
      if (runType === 'person' && firstName && type === null && tags.has('ProperNoun') && /^\p{Lu}/u.test(t.text)) type = 'person';
      if (type !== runType) flush();
      if (type) {
        run.push(t);
        runType = type;
        if (tags.has('FirstName')) firstName = true;
      }
      if (t.post.includes(',') || (type === 'person' && tags.has('Possessive'))) flush();
    }
    flush();
  }
  return out;
}
