// Maximal marginal relevance: picks results one at a time, each maximizing
// lambda * relevance - (1 - lambda) * (highest cosine similarity to a result already picked),
// so near-duplicates of what was already chosen give way to facts that add something new. Items of the same
// group (the same source passage) count as fully similar: a second sentence of a message adds less than another
// message does.
import { cosine } from '../core/index.ts';

export interface MmrItem {
  id: string;
  /** Relevance on any scale: min-max scaled to [0, 1] over the items, so it weighs against similarity evenly. */
  relevance: number;
}

/**
 * Ids of up to `k` items in MMR order. `lambda` 1 keeps the relevance order; 0 picks only for novelty.
 * Items without a vector count as similar to nothing.
 */
export function mmr(
  items: MmrItem[],
  vectors: Map<string, Float32Array>,
  lambda: number,
  k: number,
  groups: Map<string, string> = new Map(),
): string[] {
  if (!(lambda >= 0 && lambda <= 1)) throw new RangeError(`MMR lambda must be within [0, 1], got ${lambda}`);
  const lo = Math.min(...items.map((it) => it.relevance));
  const hi = Math.max(...items.map((it) => it.relevance));
  const rest = items.map((it) => ({ id: it.id, relevance: hi > lo ? (it.relevance - lo) / (hi - lo) : 1, maxSim: 0 }));
  const picked: string[] = [];
  while (picked.length < k && rest.length > 0) {
    let bestIndex = 0;
    let bestValue = -Infinity;
    rest.forEach((c, i) => {
      const value = lambda * c.relevance - (1 - lambda) * c.maxSim;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = i;
      }
    });
    const [chosen] = rest.splice(bestIndex, 1);
    picked.push(chosen.id);
    const v = vectors.get(chosen.id);
    const group = groups.get(chosen.id);
    for (const c of rest) {
      if (group !== undefined && groups.get(c.id) === group) c.maxSim = 1;
      const w = v && vectors.get(c.id);
      if (v && w) c.maxSim = Math.max(c.maxSim, cosine(v, w));
    }
  }
  return picked;
}
