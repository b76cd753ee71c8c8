// Questions that ask for a set ("What activities does Melanie partake in?", "Which cities has Jon visited?", "How
// many tournaments has Nate won?") are answered by several memories, told apart in time, each naming one member
// ("I play clarinet", "playing my violin") and seldom the set's own word ("instruments"). Recall treats them two
// ways: the fusion is flatter (a fact one arm found high is not crowded out by facts every arm agrees on, which
// tend to be one memory's neighbours), and the keyword arm also searches the words nearest the set's in meaning
// (its members: "violin", "guitars", "percussion" for instruments), when the embedder knows words.

/** Auxiliaries that end the noun phrase after the question word ("What martial arts *has* John done?"). */
const AUX = '(?:does|did|do|has|have|had|is|are|was|were|can|could|will|would|should)';
/** "What|Which|How many", a noun phrase of up to five words whose last word is the head, then an auxiliary. */
const SET = new RegExp(`^\\s*(?:in\\s+)?(what|which|how\\s+many)\\s+(?!${AUX}\\b)((?:[\\w+/'-]+\\s+){0,4}?[\\w+/'-]+)\\s+${AUX}\\b`, 'i');
/** Words ending in s that are not plurals. */
const NOT_PLURAL = new Set(['this', 'his', 'its', 'was', 'is', 'has', 'does', 'us', 'news']);
/** Words of the noun phrase that do not name the set. */
const NOT_SET = new Set(['kind', 'kinds', 'type', 'types', 'sort', 'sorts', 'of', 'the', 'some', 'other']);

export interface AskedSet {
  /** The words naming the set ("martial", "arts"); none for a count ("how many times"), whose noun is often a unit. */
  words: string[];
}

/** The set a question asks for (its head noun is plural), or null. */
export function askedSet(query: string): AskedSet | null {
  const m = SET.exec(query);
  if (!m) return null;
  const phrase = m[2].split(/\s+/);
  const count = /^how\s+many$/i.test(m[1]);
  if (!count) {
    const head = (phrase.at(-1) ?? '').toLowerCase();
    if (!head.endsWith('s') || head.endsWith('ss') || NOT_PLURAL.has(head)) return null;
  }
  const words = count ? [] : phrase.map((w) => w.toLowerCase().replace(/[^a-z-]/g, '')).filter((w) => w.length > 2 && !NOT_SET.has(w));
  return { words };
}

/** How many nearest words of each set word are searched, and how near they must be (cosine). */
export const EXPANSION_WORDS = 10;
export const EXPANSION_MIN_SIMILARITY = 0.5;

/** Words near a word in meaning, nearest first (an embedder that knows words: see Embedder.similarWords). */
export type SimilarWords = (word: string, n: number) => Array<{ word: string; similarity: number }>;

/** The words nearest the set's (at least EXPANSION_MIN_SIMILARITY), without the set's own words. */
export function expansionOf(set: AskedSet, similar: SimilarWords): string[] {
  const own = new Set(set.words);
  const out = new Set<string>();
  for (const w of set.words)
    for (const s of similar(w, EXPANSION_WORDS)) if (s.similarity >= EXPANSION_MIN_SIMILARITY && !own.has(s.word)) out.add(s.word);
  return [...out];
}
