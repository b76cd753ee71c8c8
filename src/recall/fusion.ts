// Weighted reciprocal rank fusion: each ranking contributes weight / (k + rank) to every id it holds
// (rank from 1), so ids found high by several arms rise above ids found by one. Only ranks matter,
// never the arms' own score scales. An arm may give more than one ranking (under its name): each contributes,
// and an id keeps the rank and score of the first that holds it.
import type { Scored } from '../store/index.ts';

export interface RankedList<N extends string = string> {
  name: N;
  weight: number;
  hits: Scored[];
}

export interface Fused<N extends string = string> {
  id: string;
  score: number;
  /** 1-based rank of the id in each list that holds it. */
  ranks: Partial<Record<N, number>>;
  /** The list's own score of the id, for each list that holds it. */
  scores: Partial<Record<N, number>>;
}

/** Fuses rankings (each best first) with RRF constant `k`; ties go to the better best rank, then to the id. */
export function fuse<N extends string>(lists: Array<RankedList<N>>, k = 60): Array<Fused<N>> {
  if (!(k >= 0)) throw new RangeError(`RRF k must be a non-negative number, got ${k}`);
  const out = new Map<string, Fused<N>>();
  for (const list of lists) {
    if (list.weight === 0) continue;
    const seen = new Set<string>();
    list.hits.forEach((hit, i) => {
      if (seen.has(hit.id)) return; // a list holding an id twice counts it once, at its better rank
      seen.add(hit.id);
      const entry: Fused<N> = out.get(hit.id) ?? { id: hit.id, score: 0, ranks: {}, scores: {} };
      entry.score += list.weight / (k + i + 1);
      if (entry.ranks[list.name] === undefined) {
        entry.ranks[list.name] = i + 1;
        entry.scores[list.name] = hit.score;
      }
      out.set(hit.id, entry);
    });
  }
  const best = (f: Fused<N>): number => Math.min(...(Object.values(f.ranks) as number[]));
  return [...out.values()].sort((a, b) => b.score - a.score || best(a) - best(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
