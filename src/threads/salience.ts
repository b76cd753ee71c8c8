// Offline salience for thread memory: removes what an observation should not carry (code blocks, tool
// output, greetings, filler, emoji) and scores each remaining sentence for what it should carry: decisions,
// intent and goals, facts, progress and outcomes, pending work and constraints.
import { contentWords, words, sentencesOf } from '../text/index.ts';

export type Cue = 'decision' | 'intent' | 'progress' | 'pending' | 'constraint' | 'fact';

const CUES: Record<Exclude<Cue, 'fact'>, RegExp> = {
  decision:
    /\b(decided?|decision|chose|choose|chosen|going with|go with|agreed?|settled on|opted|picked|let'?s (?:use|go|do|try|plan)|plan is|switch(?:ed)? to|instead of|we'?ll use|i'?ll use)\b/i,
  intent:
    /\b(i want|i'?d like|i would like|i need|i'?m looking for|looking to|my goal|goal is|goals?|trying to|help me|can you|could you|please|i hope|hoping to|i plan|planning|aim(?:ing)? to|dream of|wanna|want to)\b/i,
  progress:
    /\b(done|finished|completed?|fixed|solved|resolved|works now|failed|broke|started|began|launched|shipped|deployed|won|lost|passed|graduated|moved|bought|adopted|joined|signed up|created|built|opened|got|went|visited|attended|painted|wrote|learned|took|made|received|finally)\b/i,
  pending:
    /\b(todo|to-do|need to|needs to|have to|has to|still|pending|next|later|tomorrow|upcoming|soon|remind|follow up|not yet|haven'?t|going to|gonna|will)\b/i,
  constraint:
    /\b(must|mustn'?t|should(?:n'?t| not)|don'?t|do not|never|always|only|at least|at most|no more than|deadline|budget|limit|required?|requirements?|allergic|can'?t(?! wait)|cannot|avoid|due)\b/i,
};

const CUE_WEIGHT: Record<Cue, number> = { decision: 1.6, intent: 1.4, progress: 1.0, pending: 1.0, constraint: 1.4, fact: 0.8 };

const TIME_WORDS =
  /\b(yesterday|today|tonight|tomorrow|ago|last (?:week|month|year|night|weekend|summer|winter|spring|fall)|next (?:week|month|year)|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|august|september|october|november|december|\d{4})\b/i;

const GREETING =
  /^(?:hi|hello|hey|heya|yo|good (?:morning|afternoon|evening|night)|thanks?|thank (?:you|u)|you'?re welcome|no problem|no worries|bye|goodbye|see (?:you|ya)|take care|talk (?:to you )?(?:soon|later)|nice to (?:meet|see|hear)|glad to hear|good to (?:see|hear)|sounds good|ok(?:ay)?|sure|great|cool|awesome|got it|will do|congrats|congratulations|sorry to hear|i'?m sorry|me too|same here|definitely|absolutely|of course|wow|haha+|lol)\b/i;

const LEAD_INTERJECTION =
  /^(?:(?:wow|oh|ah|aw+|haha+|hah|lol|yeah|yes|yep|nope|well|so|hey|hi|hello|ok(?:ay)?|omg|hmm+|um+|uh+|gosh|whoa|yay|cool|great|nice|awesome|amazing|totally|sure|thanks|thank you|definitely|absolutely)(?:\s+[A-Z][a-z]+)?\s*[,!.…:;-]+\s*)+/i;

const FILLER = /\b(?:you know|i mean|kind of|sort of|basically|actually|literally|honestly|really|just|totally|super|pretty much)\b,?\s*/gi;

/** The speaker telling what they (or their group) did: "I finally finished", "we adopted", "my sister moved". */
const FIRST_PERSON_EVENT =
  /\b(?:i|we|my \w+)(?:'ve| have| had| just| finally| recently| also| actually)?\s+(?:\w+ed|went|got|made|took|saw|met|bought|began|ran|won|gave|found|came|wrote|read|lost|built|sold|left|drove|flew|taught|thought|felt|heard|kept|brought|spent|started|joined)\b/i;

/** Sentences that address the other speaker rather than tell something: "You ...", "That's ...", "Sounds ...". */
const ADDRESSED =
  /^(?:you(?:'re|'ve|'ll| are| have| should| must| can| could| will)?|your|that(?:'s| is| sounds| looks)|sounds|looks|what a|how (?:cool|nice|great|awesome|amazing|fun|exciting))\b/i;

/** Drops fenced and indented code, markdown decoration, emoji and lines that look like logs or data dumps. */
export function stripNoise(text: string): string {
  const withoutFences = text.replace(/```[\s\S]*?(?:```|$)/g, '\n').replace(/~~~[\s\S]*?(?:~~~|$)/g, '\n');
  const lines = withoutFences.split('\n').filter((line) => {
    if (/^( {4}|\t)\S/.test(line)) return false;
    const t = line.trim();
    if (!t) return false;
    if (/^[{[<$>#|]|^\w+@\w+:|^at \S+ \(/.test(t) && !/^#+\s+\w/.test(t)) return false;
    const symbols = (t.match(/[{}()[\];=<>$\\/_|]/g) ?? []).length;
    return symbols / t.length < 0.12;
  });
  return lines
    .map((l) =>
      l
        .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
        .replace(/^#+\s+/, '')
        .replace(/[*_`]{1,3}([^*_`]+)[*_`]{1,3}/g, '$1'),
    )
    .join('\n')
    .replace(/\p{Extended_Pictographic}\uFE0F?/gu, '')
    .trim();
}

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const { segment } of sentencesOf(text)) {
    for (const part of segment.split(/\n+/)) {
      const t = part.trim();
      if (t) out.push(t);
    }
  }
  return out;
}

/** Removes leading interjections and filler words; keeps the sentence's own words otherwise. */
export function tidy(sentence: string): string {
  let s = sentence.replace(LEAD_INTERJECTION, '');
  s = s
    .replace(FILLER, '')
    .replace(/\s+([,.!?;:])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .trim();
  s = s.replace(/^[,;:.\s-]+/, '');
  if (!s) return '';
  s = (s[0].toUpperCase() + s.slice(1)).replace(/[\s,;:-]+$/, '');
  if (!s) return '';
  if (!/[.!?]$/.test(s)) s += '.';
  return s;
}

/** A greeting, thanks or acknowledgement with at most one word of content besides. */
export function isGreeting(sentence: string, names: ReadonlySet<string> = new Set()): boolean {
  const t = sentence.trim();
  const m = GREETING.exec(t);
  if (!m) return false;
  const rest = contentWords(t.slice(m[0].length)).filter((w) => !names.has(w));
  return rest.length <= 1;
}

export function isQuestion(sentence: string): boolean {
  return /\?\s*$/.test(sentence);
}

export function cuesOf(sentence: string): Set<Cue> {
  const found = new Set<Cue>();
  for (const [cue, re] of Object.entries(CUES) as Array<[Exclude<Cue, 'fact'>, RegExp]>) if (re.test(sentence)) found.add(cue);
  if (
    /\d/.test(sentence) ||
    TIME_WORDS.test(sentence) ||
    properNouns(sentence) > 0 ||
    /\b(?:i am|i'm|i have|i've|my|our)\b/i.test(sentence)
  )
    found.add('fact');
  return found;
}

/** Capitalised words that do not start the sentence (names, places, products). */
export function properNouns(sentence: string): number {
  const tokens = sentence.split(/\s+/).slice(1);
  return tokens.filter((t) => /^[A-Z][\p{L}\d'-]+/u.test(t) && !/^I('|$)/.test(t)).length;
}

export interface ScoreOptions {
  role: string;
}

/** How much a sentence deserves a place in memory; below zero means never. */
export function salience(sentence: string, options: ScoreOptions): number {
  const words = contentWords(sentence);
  if (words.length < 2) return -1;
  let score = 0.15 * Math.min(words.length, 14);
  const cues = cuesOf(sentence);
  // Cue words are common in small talk ("don't worry", "I will"): they count in full only in a sentence of substance.
  const substance = Math.min(1, words.length / 5);
  for (const cue of cues) score += CUE_WEIGHT[cue] * substance;
  score += 0.4 * Math.min(properNouns(sentence), 3);
  if (/\d/.test(sentence)) score += 0.5;
  if (TIME_WORDS.test(sentence)) score += 0.5;
  if (FIRST_PERSON_EVENT.test(sentence)) score += 1.0;
  if (isQuestion(sentence)) score -= options.role === 'user' && cues.has('intent') ? 0.2 : 1.5;
  // Reactions to the other speaker ("You did great!", "That sounds amazing!") rarely carry anything to remember.
  if (ADDRESSED.test(sentence)) score -= 0.8;
  if (!specific(sentence) && !FIRST_PERSON_EVENT.test(sentence) && !cues.has('decision')) score -= isExclamation(sentence) ? 1.0 : 0.4;
  if (options.role === 'user') score += 0.3;
  return score;
}

/** Carries something checkable: a number, a time expression or a name. */
export function specific(sentence: string): boolean {
  return /\d/.test(sentence) || TIME_WORDS.test(sentence) || properNouns(sentence) > 0;
}

export const isExclamation = (sentence: string): boolean => /!\s*$/.test(sentence);

/** A decision or a constraint stated plainly (not an exclamation such as "Never give up!"): kept before anything else. */
export function isBinding(sentence: string, cues: ReadonlySet<Cue> = cuesOf(sentence)): boolean {
  return !isQuestion(sentence) && !isExclamation(sentence) && (cues.has('decision') || cues.has('constraint'));
}

/** Share of a's content words that also occur in b (0..1). */
export function containment(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0) return 1;
  let hit = 0;
  for (const w of a) if (b.has(w)) hit++;
  return hit / a.size;
}

/** Whether a says nothing b does not: most of its words are in b, and all of its numbers. */
export function restates(a: ReadonlySet<string>, b: ReadonlySet<string>, share: number): boolean {
  for (const w of a) if (/\d/.test(w) && !b.has(w)) return false;
  return containment(a, b) >= share;
}

/** Content words plus every number: two statements that differ in a number say different things. */
export const wordSet = (text: string): Set<string> => new Set([...contentWords(text), ...words(text).filter((w) => /\d/.test(w))]);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "8 May 2023" for an ISO timestamp (UTC). */
export function dayLabel(iso: string | null): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/**
 * The worth of a note of one or more sentences: the salience of its sentences worth keeping, with diminishing
 * returns for length (a short, dense note beats a long, chatty one of the same total).
 */
export function noteScore(sentences: ReadonlyArray<{ score: number }>, tokens: number): number {
  const total = sentences.reduce((n, x) => n + Math.max(0, x.score), 0);
  return total / Math.sqrt(Math.max(tokens, 1) / 12);
}
