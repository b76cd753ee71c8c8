// Semantic links: each new fact is linked to its nearest stored facts when they are close enough.
import type { FactLink } from '../core/types.ts';
import type { MemoryStore, VectorRecord } from '../store/ports.ts';

export const SEMANTIC_LINK_MIN_SIMILARITY = 0.9;
export const SEMANTIC_LINKS_PER_FACT = 2;

export async function semanticLinks(
  store: MemoryStore,
  bankId: string,
  records: VectorRecord[],
  minSimilarity = SEMANTIC_LINK_MIN_SIMILARITY,
): Promise<FactLink[]> {
  const links: FactLink[] = [];
  for (const r of records) {
    const near = await store.vectors.search(bankId, r.vector, SEMANTIC_LINKS_PER_FACT, { kinds: ['world', 'experience'] });
    for (const n of near) if (n.score >= minSimilarity && n.id !== r.id) links.push({ bankId, from: r.id, to: n.id, type: 'semantic', weight: n.score });
  }
  return links;
}
