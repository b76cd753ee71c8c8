// Phrase matches: BM25 scores words one by one, so a fact that repeats a run of the question's words in order
// ("solve 5 problems on parallel and perpendicular lines") scores no better than one that has the same words
// scattered, and a long sentence loses to short ones for its length. The longest run of the query's words (stemmed,
// stopwords kept inside a run but not counted) that a fact holds in order is a signal of its own.
import { isStopword, stem, words } from '../text/index.ts';

/** Most words of a query, and of a fact, compared in runs: the work is their product, for each candidate fact, and a
 * hostile query or a sentence of a 100 KB item must not hold the thread. */
const MAX_QUERY_WORDS = 64;
const MAX_TEXT_WORDS = 400;

/** The words of a text as compared in runs: lower case, stemmed. */
const stems = (text: string): string[] =>
  words(text.slice(0, MAX_TEXT_WORDS * 20))
    .slice(0, MAX_TEXT_WORDS)
    .map((w) => stem(w));

/** The longest run of the query's words the text holds in the same order, counted in content words. */
export function longestRun(queryStems: readonly string[], queryContent: readonly boolean[], text: string): number {
  const t = stems(text);
  if (!t.length || !queryStems.length) return 0;
  // Dynamic programming over (query position, text position): the run ending at both, in content words.
  let prev = new Array<number>(t.length + 1).fill(0);
  let prevLen = new Array<number>(t.length + 1).fill(0);
  let best = 0;
  for (let i = 0; i < queryStems.length; i++) {
    const cur = new Array<number>(t.length + 1).fill(0);
    const curLen = new Array<number>(t.length + 1).fill(0);
    for (let j = 0; j < t.length; j++) {
      if (queryStems[i] !== t[j]) continue;
      curLen[j + 1] = prevLen[j] + 1;
      cur[j + 1] = prev[j] + (queryContent[i] ? 1 : 0);
      if (cur[j + 1] > best) best = cur[j + 1];
    }
    prev = cur;
    prevLen = curLen;
  }
  return best;
}

/** The query prepared for longestRun: its stems and which of them are content words. */
export function queryRuns(query: string): { stems: string[]; content: boolean[] } {
  const w = words(query).slice(0, MAX_QUERY_WORDS);
  return { stems: w.map((x) => stem(x)), content: w.map((x) => !isStopword(x) && x.length > 1) };
}
