// Seeds for the arms that start from the others' findings (graph, temporal): the semantic and keyword rankings
// fused by reciprocal rank, so a fact high in both leads, with a strength that falls with the rank.
import type { Scored } from '../../store/index.ts';
import { topHits } from './context.ts';

/** RRF constant for ordering the seeds (small: the arms' top hits matter most). */
const SEED_RRF_K = 5;

/** The top `count` seeds with strength 1 / sqrt(rank), so the best few dominate. */
export function seedsOf(lists: Scored[][], count: number): Map<string, number> {
  const fused = new Map<string, number>();
  for (const list of lists) list.forEach((hit, i) => fused.set(hit.id, (fused.get(hit.id) ?? 0) + 1 / (SEED_RRF_K + i + 1)));
  const seeds = new Map<string, number>();
  topHits(fused, count).forEach((hit, i) => seeds.set(hit.id, 1 / Math.sqrt(i + 1)));
  return seeds;
}
