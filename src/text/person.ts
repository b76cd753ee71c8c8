// Rewrites a conversational sentence into the third person: the speaker's "I/me/my" become the speaker's name
// and the addressee's "you/your" the addressee's, with the verb agreeing ("I live" -> "Maya lives", "you are"
// -> "Sam is"), so a fact reads as a statement about someone when it is shown away from its conversation.
// Generic "you" ("you never know", "if you ...", "expressing yourself") is left alone: it names nobody.
import nlp from 'compromise';

export interface People {
  speaker: string | null;
  /** Who the sentence is said to (the other party of a two-way conversation), when known. */
  addressee?: string | null;
}

const MODALS = new Set(['can', 'could', 'will', 'would', 'shall', 'should', 'may', 'might', 'must', 'ought', 'need']);
const IRREGULAR: Record<string, string> = { am: 'is', are: 'is', have: 'has', do: 'does', go: 'goes', were: 'was', be: 'is' };
const CONTRACTED: Record<string, string> = {
  "don't": "doesn't",
  "haven't": "hasn't",
  "aren't": "isn't",
  "weren't": "wasn't",
  dont: "doesn't",
};
/** Adverbs that may stand between the subject and its verb ("I really love"). */
const ADVERBS = new Set(
  'really also just still now always never usually often actually totally definitely truly sometimes finally already even mostly only recently currently kinda kind of literally seriously absolutely honestly personally rarely constantly especially'.split(
    ' ',
  ),
);

/** "live" -> "lives", "try" -> "tries", "watch" -> "watches" (a verb's third person singular). */
export function thirdPersonForm(verb: string): string {
  const lower = verb.toLowerCase();
  if (IRREGULAR[lower]) return IRREGULAR[lower];
  if (CONTRACTED[lower]) return CONTRACTED[lower];
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`;
  if (/(s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`;
  return `${verb}s`;
}

const baseForms = new Map<string, boolean>();

/** True when the word, right after "I", is a verb in its base form (so it must agree with a name). */
/** Verbs the tagger reads as another part of speech after "I" ("like" as a preposition). */
const ALWAYS_VERBS = new Set(['like', 'love', 'hate', 'mean', 'bet', 'miss', 'wish', 'prefer', 'guess', 'wonder']);

function isBaseVerb(word: string): boolean {
  const lower = word.toLowerCase();
  if (lower in IRREGULAR || lower in CONTRACTED || ALWAYS_VERBS.has(lower)) return true;
  if (MODALS.has(lower) || lower.endsWith('ed')) return false;
  let known = baseForms.get(lower);
  if (known === undefined) {
    const tags = new Set<string>(
      (nlp(`I ${lower} it`).terms().json() as Array<{ terms: Array<{ tags: string[] }> }>)[1]?.terms?.[0]?.tags ?? [],
    );
    known = tags.has('Verb') && tags.has('Infinitive') && !tags.has('PastTense') && !tags.has('Modal');
    if (baseForms.size > 20_000) baseForms.clear();
    baseForms.set(lower, known);
  }
  return known;
}

const possessive = (name: string): string => (name.endsWith('s') ? `${name}'` : `${name}'s`);

/** Makes the verb after each subject mark agree with the name put there: "Maya live" -> "Maya lives". */
function agree(text: string, mark: string, name: string): string {
  const re = new RegExp(`()(${mark})((?:\\s+(?:${[...ADVERBS].join('|')}))*)\\s+([A-Za-z]+(?:['’]t)?)\\b`, 'gu');
  return text.replace(re, (_all, lead: string, _mark: string, advs: string, verb: string) => {
    const lower = verb.toLowerCase().replace('’', "'");
    if (lower in CONTRACTED) return `${lead}${name}${advs} ${CONTRACTED[lower]}`;
    if (!isBaseVerb(verb)) return `${lead}${name}${advs} ${verb}`;
    const form = thirdPersonForm(verb);
    return `${lead}${name}${advs} ${verb[0] === verb[0].toUpperCase() && verb[0] !== verb[0].toLowerCase() ? form[0].toUpperCase() + form.slice(1) : form}`;
  });
}

/** Verbs taking an object and a bare verb: "let you know", "made me feel". */
export const CAUSATIVE =
  /^(?:let|lets|letting|help|helps|helped|helping|make|makes|made|making|have|has|had|watch|watched|see|saw|seen|hear|heard|bid)$/i;

/** True when the words (a leading adverb allowed) start with a base-form verb. */
function startsWithVerb(words: string): boolean {
  const [first, second] = words.trim().split(/\s+/);
  if (ADVERBS.has(first?.toLowerCase() ?? '')) return !!second && isBaseVerb(second);
  return !!first && isBaseVerb(first);
}

/** Generic second person: says something of anyone, not of the addressee. */
const GENERIC_YOU =
  /((?:^|[,.!?]\s*)you know\b|(?:^|[,.!?]\s*)you see\b|\b(?:you never know|you bet|if you|when you|whether you|you can never|thank you|you guys|you all|y'all|expressing yourself|be yourself)\b)/i;

export function toThirdPerson(sentence: string, people: People): string {
  let out = sentence;
  const { speaker } = people;
  if (speaker) {
    const mark = '\u0001';
    out = out
      .replace(/\bI['’]m\b/g, `${mark} is`)
      .replace(/\bI am\b/g, `${mark} is`)
      .replace(/\bI['’]ve\b/g, `${mark} has`)
      .replace(/\bI['’]ll\b/g, `${mark} will`)
      .replace(/\bI['’]d\b/g, `${mark} would`)
      .replace(/\bI\b/g, mark)
      .replace(/\b[Mm]y\b/g, possessive(speaker))
      .replace(/\b[Mm]ine\b/g, possessive(speaker))
      .replace(/\b[Mm]yself\b/g, speaker)
      .replace(/(\w[,]?\s+)me\b/g, `$1${speaker}`);
    out = agree(out, mark, speaker).split(mark).join(speaker);
  }
  const addressee = people.addressee;
  if (addressee && addressee !== speaker && /\byou/i.test(out) && !GENERIC_YOU.test(out) && !/\?\s*$/.test(out)) {
    const mark = '\u0002';
    out = out
      .replace(/\b[Yy]ou['’]re\b/g, `${mark} is`)
      .replace(/\b[Yy]ou are\b/g, `${mark} is`)
      .replace(/\b[Yy]ou were\b/g, `${mark} was`)
      .replace(/\b[Yy]ou['’]ve\b/g, `${mark} has`)
      .replace(/\b[Yy]ou['’]ll\b/g, `${mark} will`)
      .replace(/\b[Yy]ou['’]d\b/g, `${mark} would`)
      .replace(/\b[Yy]ours\b/g, possessive(addressee))
      .replace(/\b[Yy]our\b/g, possessive(addressee))
      .replace(/\b[Yy]ourself\b/g, addressee)
      // "you" is the subject where a verb follows ("make sure you take care"), except after a verb that takes an
      // object and a bare verb ("let you know", "help you find"); otherwise an object ("proud of you").
      .replace(/(\b[A-Za-z]+\s+)?\b[Yy]ou\b(?=((?:\s+[a-z]+)?\s+[a-z]+))/g, (_all: string, before: string | undefined, next: string) =>
        (before && CAUSATIVE.test(before.trim())) || !startsWithVerb(next) ? `${before ?? ''}${addressee}` : `${before ?? ''}${mark}`,
      )
      .replace(/\b[Yy]ou\b/g, addressee);
    out = agree(out, mark, addressee).split(mark).join(addressee);
  }
  return out;
}

/** Second person left in a text (outside quotes): the sentence names someone it cannot say who. */
export function hasUnresolvedYou(text: string): boolean {
  const unquoted = text.replace(/"[^"]*"|“[^”]*”/g, ' ');
  return /\b(you|your|yours|yourself)\b/i.test(unquoted) && !GENERIC_YOU.test(unquoted);
}
