// Cross-encoder reranking of the top fused candidates. Each of the top N gets
//   final = w * (cross-encoder score, min-max scaled over the N) + (1 - w) * (fused score / best fused score);
// the candidates below N get (1 - w) * (fused / best), as if the cross-encoder had scored them lowest, so
// they stay below every reranked candidate and in fused order. w = 1 replaces the fused order outright.
import type { Reranker } from '../embed/index.ts';

export interface RerankCandidate {
  id: string;
  text: string;
  fused: number;
}

export interface Reranked {
  id: string;
  score: number;
  /** The cross-encoder's raw score, for the top N. */
  rerank?: number;
}

export async function rerank(
  reranker: Reranker,
  query: string,
  candidates: RerankCandidate[],
  n: number,
  weight: number,
): Promise<Reranked[]> {
  if (!(weight >= 0 && weight <= 1)) throw new RangeError(`rerank weight must be within [0, 1], got ${weight}`);
  const top = candidates.slice(0, n);
  const raw = top.length
    ? await reranker.score(
        query,
        top.map((c) => c.text),
      )
    : [];
  if (raw.length !== top.length) throw new Error(`reranker ${reranker.id} returned ${raw.length} scores for ${top.length} documents`);
  const lo = Math.min(...raw);
  const hi = Math.max(...raw);
  const bestFused = candidates.reduce((m, c) => Math.max(m, c.fused), 0);
  const fusedShare = (c: RerankCandidate): number => (1 - weight) * (bestFused > 0 ? c.fused / bestFused : 0);
  const out: Reranked[] = candidates.map((c, i) => {
    if (i >= top.length) return { id: c.id, score: fusedShare(c) };
    const scaled = hi > lo ? (raw[i] - lo) / (hi - lo) : 1;
    return { id: c.id, score: weight * scaled + fusedShare(c), rerank: raw[i] };
  });
  // Stable: equal scores keep the fused order.
  return out
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.score - a.r.score || a.i - b.i)
    .map(({ r }) => r);
}
