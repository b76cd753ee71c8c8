// The m best of a stream of scored positions, without holding the stream: a bounded min-heap, used by the vector
// scan and the keyword index's BM25.

/** The m largest scores pushed, with their positions: a bounded min-heap (ties: the earlier position wins). */
export class TopK {
  private readonly scores: Float32Array | Float64Array;
  private readonly positions: Float64Array;
  private readonly single: boolean;
  private n = 0;

  /** precision 'single': scores are compared as float32 (vector similarities); 'double': as given. */
  constructor(
    private readonly m: number,
    precision: 'single' | 'double' = 'single',
  ) {
    this.single = precision === 'single';
    this.scores = this.single ? new Float32Array(Math.max(0, m)) : new Float64Array(Math.max(0, m));
    this.positions = new Float64Array(Math.max(0, m));
  }

  push(score: number, position: number): void {
    const { m } = this;
    if (m <= 0) return;
    if (this.single) score = Math.fround(score); // compared as the heap stores it
    if (this.n < m) {
      this.scores[this.n] = score;
      this.positions[this.n] = position;
      for (let j = this.n++; j > 0 && this.below(j, (j - 1) >> 1); j = (j - 1) >> 1) this.swap(j, (j - 1) >> 1);
      return;
    }
    // Not better than the least kept: an equal score replaces it only from an earlier position (pushes may come in any order).
    if (score < this.scores[0] || (score === this.scores[0] && position >= this.positions[0])) return;
    this.scores[0] = score;
    this.positions[0] = position;
    for (let j = 0; ; ) {
      const l = 2 * j + 1,
        r = l + 1;
      let least = j;
      if (l < m && this.below(l, least)) least = l;
      if (r < m && this.below(r, least)) least = r;
      if (least === j) break;
      this.swap(j, least);
      j = least;
    }
  }

  /** The one a better push would drop once the m are kept (the least score, of those the latest position); null
   * while fewer than m are kept. */
  worst(): { score: number; position: number } | null {
    return this.m > 0 && this.n === this.m ? { score: this.scores[0], position: this.positions[0] } : null;
  }

  /** Best first; equal scores in position order. */
  sorted(): { positions: number[]; scores: number[] } {
    const order = Array.from({ length: this.n }, (_, i) => i).sort(
      (a, b) => this.scores[b] - this.scores[a] || this.positions[a] - this.positions[b],
    );
    return { positions: order.map((i) => this.positions[i]), scores: order.map((i) => this.scores[i]) };
  }

  /** Heap order: the lower score first; of equal scores the later position first (it is the one to drop). */
  private below(a: number, b: number): boolean {
    return this.scores[a] < this.scores[b] || (this.scores[a] === this.scores[b] && this.positions[a] > this.positions[b]);
  }

  private swap(a: number, b: number): void {
    const score = this.scores[a];
    this.scores[a] = this.scores[b];
    this.scores[b] = score;
    const position = this.positions[a];
    this.positions[a] = this.positions[b];
    this.positions[b] = position;
  }
}
