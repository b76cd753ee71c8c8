// Results that cover distinct sources. A long message yields dozens of facts that share its words, so without a
// cap one message's sentences crowd a recall's list; each source passage (the chunk a fact was read from: an item,
// or a section of a long one) gives at most `perSource` results, the rest of its facts stay reachable through it.
import type { Fact } from '../core/index.ts';
import type { FactFacets } from '../store/index.ts';

/** The passage a fact was read from, or null (observations, facts without a source: never capped). */
export const sourceOf = (fact: Pick<FactFacets, 'source'> | undefined): string | null => fact?.source?.chunkId ?? null;

/** The ranked list with at most `perSource` entries per source, in order; 0 keeps everything. */
export function capPerSource<T extends { id: string }>(ranked: T[], facts: Map<string, Fact>, perSource: number): T[] {
  if (perSource <= 0) return ranked;
  const taken = new Map<string, number>();
  return ranked.filter((r) => {
    const source = sourceOf(facts.get(r.id));
    if (source === null) return true;
    const n = taken.get(source) ?? 0;
    taken.set(source, n + 1);
    return n < perSource;
  });
}
