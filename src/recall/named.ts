// Facts about what the query names rise: a question that names a person, place or thing ("What has Alice
// painted?") asks about facts concerning it, and the similarity arms cannot tell: they search without hub names
// (which match most facts) and rank by topic, so a reply by someone else on the same topic ranks as high as the
// fact itself.
import type { Fact } from '../core/index.ts';
import { reweigh } from './reweigh.ts';

/**
 * Raises, by `share` of its score, each candidate whose fact mentions one of `named`, and re-sorts (stable on
 * ties). Candidates whose fact is not in `facts` keep their score.
 */
export function raiseNamed<T extends { id: string; score: number }>(
  candidates: T[],
  facts: Map<string, Fact>,
  named: Set<string>,
  share: number,
): T[] {
  if (named.size === 0 || share === 0) return candidates;
  return reweigh(candidates, facts, (fact) => (fact.entities.some((e) => named.has(e)) ? 1 + share : 1));
}
