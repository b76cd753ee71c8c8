// Semantic links: each new fact is linked to its nearest facts when they are close enough. The candidates are the
// bank's facts stored before the retain began (through the vector index) and the retain's own last facts (compared in
// memory), so a long item costs the same per fact at its end as at its start: without the bound, each fact was
// compared with every fact the item had written before it, and retain time grew with the square of its length.
import { dot, type FactLink, type FactKind } from '../core/index.ts';
import type { RecallReads, VectorRecord } from '../store/index.ts';

export const SEMANTIC_LINK_MIN_SIMILARITY = 0.9;
export const SEMANTIC_LINKS_PER_FACT = 2;
/** How many of a retain's own earlier facts each of its facts is compared with. */
export const SEMANTIC_LINK_WINDOW = 1000;

const LINKED_KINDS: readonly FactKind[] = ['world', 'experience'];

/**
 * The facts a retain has written so far, the last `capacity` of them (of the kinds semantic links join): a ring of
 * vectors in one array, so a long retain holds a bounded number of them.
 */
export class RecentFacts {
  private readonly ids: string[] = [];
  private data = new Float32Array(0);
  private dim = 0;
  private next = 0;

  constructor(
    /** Facts of the bank recorded at or before this instant are found through the vector index. */
    readonly since: string,
    private readonly capacity = SEMANTIC_LINK_WINDOW,
  ) {}

  /** Adds written facts (facts of other kinds are never linked to, so they are not kept). */
  add(records: Array<VectorRecord & { kind: FactKind }>): void {
    if (this.capacity <= 0) return;
    for (const r of records) {
      if (!LINKED_KINDS.includes(r.kind)) continue;
      if (this.dim !== r.vector.length) {
        // The first vector (or, should the embedder change mid-retain, one of another size): start afresh.
        this.dim = r.vector.length;
        this.data = new Float32Array(this.capacity * this.dim);
        this.ids.length = 0;
        this.next = 0;
      }
      this.ids[this.next] = r.id;
      this.data.set(r.vector, this.next * this.dim);
      this.next = (this.next + 1) % this.capacity;
    }
  }

  /** The kept facts at least minSimilarity alike the vector (by inner product), with their scores. */
  alike(vector: Float32Array, minSimilarity: number): Array<{ id: string; score: number }> {
    const out: Array<{ id: string; score: number }> = [];
    if (vector.length !== this.dim) return out;
    for (let i = 0; i < this.ids.length; i++) {
      const score = dot(this.data, i * this.dim, vector, this.dim);
      if (score >= minSimilarity) out.push({ id: this.ids[i], score });
    }
    return out;
  }
}

/** Links from each record to its nearest candidates (see above) at least minSimilarity alike, best first. */
export async function semanticLinks(
  store: RecallReads,
  bankId: string,
  records: VectorRecord[],
  recent: RecentFacts,
  minSimilarity = SEMANTIC_LINK_MIN_SIMILARITY,
): Promise<FactLink[]> {
  const links: FactLink[] = [];
  const found = await store.vectors.searchMany(
    bankId,
    records.map((r) => r.vector),
    SEMANTIC_LINKS_PER_FACT,
    { kinds: [...LINKED_KINDS], recordedBefore: recent.since },
  );
  for (const [i, r] of records.entries()) {
    const stored = found[i];
    const best = new Map<string, number>();
    for (const n of [...stored, ...recent.alike(r.vector, minSimilarity)])
      if (n.score >= minSimilarity && n.id !== r.id) best.set(n.id, n.score);
    const nearest = [...best].sort((a, b) => b[1] - a[1]).slice(0, SEMANTIC_LINKS_PER_FACT);
    for (const [to, weight] of nearest) links.push({ bankId, from: r.id, to, type: 'semantic', weight });
  }
  return links;
}
