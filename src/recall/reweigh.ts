// Rescales the scores of fused candidates by what their facts say and re-sorts them, stable on ties: the one
// mechanism behind raising facts that mention what the query names and lowering the agent's own turns.
import type { Fact } from '../core/index.ts';

/** Each candidate's score times `factor(fact)` (1 when its fact is not in `facts`), best first, ties in input order. */
export function reweigh<T extends { id: string; score: number }>(
  candidates: T[],
  facts: Map<string, Fact>,
  factor: (fact: Fact) => number,
): T[] {
  const scored = candidates.map((c, i) => {
    const fact = facts.get(c.id);
    const f = fact === undefined ? 1 : factor(fact);
    return { c: f === 1 ? c : { ...c, score: c.score * f }, i };
  });
  return scored.sort((a, b) => b.c.score - a.c.score || a.i - b.i).map((s) => s.c);
}
