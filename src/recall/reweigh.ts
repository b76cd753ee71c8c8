// Rescales the scores of fused candidates by what their facts say and re-sorts them, stable on ties: the one
// mechanism behind raising facts that mention what the query names and lowering the agent's own turns.
/** Each candidate's score times `factor(fact)` (1 when its fact is not in `facts`), best first, ties in input order.
 * `facts` holds what the factor reads: whole facts, or their facets. */
export function reweigh<T extends { id: string; score: number }, F>(
  candidates: T[],
  facts: Map<string, F>,
  factor: (fact: F) => number,
): T[] {
  const scored = candidates.map((c, i) => {
    const fact = facts.get(c.id);
    const f = fact === undefined ? 1 : factor(fact);
    return { c: f === 1 ? c : { ...c, score: c.score * f }, i };
  });
  return scored.sort((a, b) => b.c.score - a.c.score || a.i - b.i).map((s) => s.c);
}
