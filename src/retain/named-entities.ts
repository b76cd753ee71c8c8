// Typed names in a sentence (people, places, organizations) read from compromise's lexicon and first tagging
// pass. Its post-tagging rules (half of compromise's time) and its match-based .people()/.places() are skipped:
// one walk over the tagged terms groups neighbouring terms of one type into a name.
import nlp from 'compromise';

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

/**
 * People, places and organizations in the text, in order. A name ends at a comma and, for people, after a
 * possessive ("Anna's"); a first name takes the capitalised proper nouns right after it as its surname
 * ("Sara Bareilles" even when the lexicon does not know "Bareilles").
 */
export function typedNames(text: string): TypedName[] {
  const out: TypedName[] = [];
  const docs = nlp.tokenize(text).compute(TAGGING).docs as Term[][];
  for (const terms of docs) {
    let run: Term[] = [];
    let runType: NameType | null = null;
    let firstName = false;
    const flush = (): void => {
      if (runType && run.length) out.push({ name: textOf(run), type: runType });
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
