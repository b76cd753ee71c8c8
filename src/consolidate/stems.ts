// Porter stems of a text's content words: the unit the offline consolidator compares texts by (lexical overlap,
// mission terms), so "deadline" meets "deadlines" and "teams" meets "team".
import { contentWords, stem } from '../text/index.ts';

export function stemSet(text: string): Set<string> {
  return new Set(contentWords(text).map((w) => stem(w)));
}

/** |a ∩ b|. */
export function sharedCount(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const s of small) if (large.has(s)) shared++;
  return shared;
}

/** |a ∩ b| / min(|a|, |b|): 1 when the smaller text's words all occur in the larger one. */
export function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  return sharedCount(a, b) / Math.min(a.size, b.size);
}
