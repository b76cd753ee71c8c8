// The Porter stem of a lowercased word, remembered: recall's phrase matching stems the words of hundreds of candidate
// texts per query and consolidation every fact's content words, and a vocabulary repeats far more than it grows.
import { stemmer } from 'stemmer';

/** Stems remembered at most; past it the memory starts over (a hostile stream of new words cannot grow it). */
const MAX_REMEMBERED = 100_000;
const remembered = new Map<string, string>();

export function stem(word: string): string {
  let s = remembered.get(word);
  if (s === undefined) {
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    s = stemmer(word);
    remembered.set(word, s);
  }
  return s;
}
