// Semantic links: each new fact is linked to its nearest facts when they are close enough. The candidates are the
// bank's facts stored before the retain began (through the vector index), the retain's own last facts (compared in
// memory) and the facts before it in its own write batch, so the links do not depend on how a client split its items
// into requests or a retain into batches. Each of the last two is bounded, so a long item costs the same per fact at
// its end as at its start: without the bound, each fact was compared with every fact the item had written before it,
// and retain time grew with the square of its length.
import { batchTop, dot, type FactLink, type FactKind, PRODUCT_SLACK, TopK } from '../core/index.ts';
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
        this.data = new Float32Array(0);
        this.ids.length = 0;
        this.next = 0;
      }
      // The ring grows as it fills, up to its capacity: most retains (one message) keep a few dozen facts, and a
      // ring allocated whole (400 KB at 100-d) for each of them was memory to zero and to collect.
      if (this.data.length < (this.next + 1) * this.dim) {
        const rows = Math.min(this.capacity, Math.max(64, 2 * this.next));
        const grown = new Float32Array(rows * this.dim);
        grown.set(this.data);
        this.data = grown;
      }
      this.ids[this.next] = r.id;
      this.data.set(r.vector, this.next * this.dim);
      this.next = (this.next + 1) % this.capacity;
    }
  }

  /** The kept facts at least minSimilarity alike the vector (by inner product), with their scores, in ring order. */
  alike(vector: Float32Array, minSimilarity: number): Array<{ id: string; score: number }> {
    const out: Array<{ id: string; score: number }> = [];
    if (vector.length !== this.dim) return out;
    for (let i = 0; i < this.ids.length; i++) {
      const score = dot(this.data, i * this.dim, vector, this.dim);
      if (score >= minSimilarity) out.push({ id: this.ids[i], score });
    }
    return out;
  }

  /**
   * For each vector, the k kept facts most alike it among those at least minSimilarity alike: what the best k of
   * alike() are (equal scores in ring order), from one matrix product for all the vectors (a long item compares
   * thousands of facts with a full ring). Rows the product scores clearly below the threshold are not rescored; a
   * vector whose answer is not settled by the rows fetched (copies of one sentence tie at the cut) is asked again
   * with four times as many, up to the whole ring.
   */
  async nearest(vectors: Float32Array[], k: number, minSimilarity: number): Promise<Array<Array<{ id: string; score: number }>>> {
    const n = this.ids.length;
    const bestOf = (found: Array<{ id: string; score: number; at: number }>): Array<{ id: string; score: number }> =>
      found
        .sort((a, b) => b.score - a.score || a.at - b.at)
        .slice(0, k)
        .map(({ id, score }) => ({ id, score }));
    const scan = (v: Float32Array): Array<{ id: string; score: number }> =>
      bestOf(this.alike(v, minSimilarity).map((x, at) => ({ ...x, at })));
    if (vectors.length < 2 || n <= k + 8 || vectors.some((v) => v.length !== this.dim)) return vectors.map(scan);
    const floor = minSimilarity - PRODUCT_SLACK;
    const out: Array<Array<{ id: string; score: number }>> = [];
    let pending = vectors.map((_, i) => i);
    for (let c = k + 8; pending.length > 0; c = Math.min(n, c * 4)) {
      const ranked = await batchTop(
        this.data,
        n,
        this.dim,
        pending.map((i) => vectors[i]),
        c,
      );
      if (!ranked || this.ids.length !== n) {
        for (const i of pending) out[i] = scan(vectors[i]);
        break;
      }
      const unsettled: number[] = [];
      pending.forEach((i, j) => {
        const { rows, values, last } = ranked[j];
        const found: Array<{ id: string; score: number; at: number }> = [];
        for (let r = 0; r < rows.length && values[r] >= floor; r++) {
          const at = Number(rows[r]);
          const score = dot(this.data, at * this.dim, vectors[i], this.dim);
          if (score >= minSimilarity) found.push({ id: this.ids[at], score, at });
        }
        const best = bestOf(found);
        // Every row left out scores at most the last one fetched: settled when that lies clearly below the threshold
        // or below the k-th kept score (float32 rounding in the product, or ties at the cut, could change nothing).
        if (c >= n || last < floor || (best.length === k && last + PRODUCT_SLACK < best[k - 1].score)) out[i] = best;
        else unsettled.push(i);
      });
      pending = unsettled;
    }
    return out;
  }
}

/** Links from each record to its nearest candidates (see above) at least minSimilarity alike, best first. */
export async function semanticLinks(
  store: RecallReads,
  bankId: string,
  records: Array<VectorRecord & { kind: FactKind }>,
  recent: RecentFacts,
  minSimilarity = SEMANTIC_LINK_MIN_SIMILARITY,
): Promise<FactLink[]> {
  const links: FactLink[] = [];
  // Copies of one sentence (a log line, a repeated block) have one vector: each is searched for once, since among
  // copies the exact searches below cannot settle which to keep without ranking every vector.
  const { distinct, of } = distinctVectors(records.map((r) => r.vector));
  const found = await store.vectors.searchMany(
    bankId,
    distinct,
    SEMANTIC_LINKS_PER_FACT,
    { kinds: [...LINKED_KINDS], recordedBefore: recent.since },
    minSimilarity,
  );
  const near = await recent.nearest(distinct, SEMANTIC_LINKS_PER_FACT, minSimilarity);
  for (const [i, r] of records.entries()) {
    const best = new Map<string, number>();
    for (const n of [...found[of[i]], ...near[of[i]], ...earlierInBatch(records, i, minSimilarity)])
      if (n.score >= minSimilarity && n.id !== r.id) best.set(n.id, n.score);
    const nearest = [...best].sort((a, b) => b[1] - a[1]).slice(0, SEMANTIC_LINKS_PER_FACT);
    for (const [to, weight] of nearest) links.push({ bankId, from: r.id, to, type: 'semantic', weight });
  }
  return links;
}

/** The distinct vectors among these (equal bytes), and which of them each one is. */
function distinctVectors(vectors: Float32Array[]): { distinct: Float32Array[]; of: number[] } {
  const seen = new Map<string, number>();
  const distinct: Float32Array[] = [];
  const of = vectors.map((v) => {
    const key = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('latin1');
    let at = seen.get(key);
    if (at === undefined) seen.set(key, (at = distinct.push(v) - 1));
    return at;
  });
  return { distinct, of };
}

/** The SEMANTIC_LINKS_PER_FACT facts before records[i] in its write batch (among the last SEMANTIC_LINK_WINDOW of them,
 * of the linked kinds) most alike it and at least minSimilarity alike, best first, equal scores in batch order: they
 * are written with it, after the searches above looked. Only these can be among its links, and copies of one
 * sentence would otherwise list the whole window for each fact. */
function earlierInBatch(
  records: Array<VectorRecord & { kind: FactKind }>,
  i: number,
  minSimilarity: number,
): Array<{ id: string; score: number }> {
  const top = new TopK(SEMANTIC_LINKS_PER_FACT, 'double');
  const v = records[i].vector;
  for (let j = Math.max(0, i - SEMANTIC_LINK_WINDOW); j < i; j++) {
    const other = records[j];
    if (!LINKED_KINDS.includes(other.kind) || other.vector.length !== v.length) continue;
    const score = dot(other.vector, 0, v, v.length);
    if (score >= minSimilarity) top.push(score, j);
  }
  const { positions, scores } = top.sorted();
  return positions.map((j, n) => ({ id: records[j].id, score: scores[n] }));
}
