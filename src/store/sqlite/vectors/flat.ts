// A bank's vectors in memory ("flat storage"): every vector in one contiguous Float32Array (dense: a delete moves the
// last slot into the hole), with each fact's kind and record time. It is the in-memory truth: exact search scans it,
// the HNSW graph is built from it and checked against it. A fact's kind and record time never change, so a kinds
// filter and a recordedBefore bound pick its slots without SQL (a retain linking its facts asks for the bank as it
// was before it began). Also the stored form of a vector. Its snapshot file: flat-file.ts.
import { createRequire } from 'node:module';
import { batchTop, dot, PRODUCT_SLACK, TopK } from '../../../core/index.ts';

// usearch (CommonJS build: its ES module finds its native addon from the call stack, which fails in some loaders).
const usearch = createRequire(import.meta.url)('usearch') as { exactSearch: (...args: unknown[]) => unknown };
/** Stores at least this large are ranked by usearch first: below it the call costs more than the JS scan saves. */
export const NATIVE_SCAN_MIN = 1024;
/** Kinds holding less than one vector in this many are scanned from a list of their slots. */
const RARE_SHARE = 8;

/** The c vectors of data (n × dim, row-major) with the largest inner product with q, by usearch's SIMD scan: their
 * rows, best first, and the native score of the last (every row left out scores at most that, up to rounding). */
export function nativeSearch(data: Float32Array, q: Float32Array, dim: number, c: number): { rows: BigUint64Array; last: number } {
  // usearch reads an array from the start of its buffer, whatever its offset: a view into a larger one (a stored
  // vector used as the query) is copied first.
  const at0 = (a: Float32Array): Float32Array => (a.byteOffset === 0 ? a : a.slice());
  const found = usearch.exactSearch(at0(data), at0(q), dim, c, 'ip', 1) as { keys: BigUint64Array; distances: Float32Array };
  // usearch's inner-product distance is 1 - q·v.
  return { rows: found.keys, last: 1 - found.distances[found.keys.length - 1] };
}

/** The next fetch of a native ranking of n slots that could not settle at c: four times as many, or null (scan
 * instead) once that would be a large share of them. */
const widened = (c: number, n: number): number | null => (c * 4 > n / 4 ? null : c * 4);

/** A vector as stored in fact_vectors.vector: its float32 bytes (platform order, little-endian here); a view, no copy. */
export function encodeVector(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** The stored bytes back as a vector (copied: SQLite's buffers need not be 4-byte aligned). */
export function decodeVector(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new Error(`a stored vector has ${bytes.byteLength} bytes, not a multiple of 4`);
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

const KIND_CODES: Readonly<Record<string, number>> = { world: 0, experience: 1, observation: 2 };
export const kindCode = (kind: string | null): number => KIND_CODES[kind ?? ''] ?? 3;
/** A fact's record time in epoch ms; NaN when unknown (never after any bound, so such a fact is never skipped). */
export const recordTime = (createdAt: string | null): number => (createdAt ? Date.parse(createdAt) : NaN);
/** Bit mask of the kinds a filter allows (null: every kind). */
export const kindMask = (kinds: readonly string[] | undefined): number | null =>
  kinds?.length ? kinds.reduce((mask, k) => mask | (1 << kindCode(k)), 0) : null;

export class FlatVectors {
  data: Float32Array;
  rids: Float64Array;
  kinds: Uint8Array;
  /** Each fact's record time (created_at) in epoch milliseconds. */
  times: Float64Array;
  /** rid -> slot, made on first use (see slots): a store read from its snapshot may answer searches without it. */
  private slotMap: Map<number, number> | null = null;
  /** Vectors per kind code. */
  readonly kindCounts = [0, 0, 0, 0];
  size = 0;
  /** Changes with every write: a batched search that awaited checks nothing moved meanwhile. */
  version = 0;
  /** The slots of the rare kinds last scanned for (see slotsOf), kept up to date as vectors are added. */
  private rare: { mask: number; slots: number[] } | null = null;
  /** The last scanEnd answer (a retain asks with one bound for each of its facts). */
  private end: { before: number; version: number; n: number } | null = null;

  constructor(
    readonly dim: number,
    capacity: number,
  ) {
    this.data = new Float32Array(Math.max(16, capacity) * dim);
    this.rids = new Float64Array(Math.max(16, capacity));
    this.kinds = new Uint8Array(Math.max(16, capacity));
    this.times = new Float64Array(Math.max(16, capacity));
  }

  /** Each stored rid's slot. Made on first use from the rids: a million entries take a few hundred milliseconds,
   * which a search scanning the arrays does not need. */
  get slots(): Map<number, number> {
    if (this.slotMap) return this.slotMap;
    const map = new Map<number, number>();
    for (let s = 0; s < this.size; s++) map.set(this.rids[s], s);
    if (map.size !== this.size) throw new Error('the flat vector store holds a rid twice');
    return (this.slotMap = map);
  }

  /** How many vectors belong to facts of the kinds in the mask. */
  count(mask: number | null): number {
    if (mask === null) return this.size;
    return this.kindCounts.reduce((sum, n, code) => (mask & (1 << code) ? sum + n : sum), 0);
  }

  /** How many vectors belong to facts of the kinds in the mask recorded by `before` (epoch ms): one pass. */
  countBefore(mask: number | null, before: number): number {
    let n = 0;
    for (let s = 0; s < this.size; s++) if ((mask === null || mask & (1 << this.kinds[s])) && !(this.times[s] > before)) n++;
    return n;
  }

  has(rid: number): boolean {
    return this.slots.has(rid);
  }

  vector(rid: number): Float32Array | null {
    const slot = this.slots.get(rid);
    return slot === undefined ? null : this.vectorAt(slot);
  }

  /** The vector in a slot (a view). */
  vectorAt(slot: number): Float32Array {
    return this.data.subarray(slot * this.dim, (slot + 1) * this.dim);
  }

  /** Stores the vector of rid from its stored bytes (no intermediate copy). */
  put(rid: number, bytes: Uint8Array, kind: number, time: number): void {
    if (bytes.byteLength !== this.dim * 4)
      throw new Error(`vector of ${bytes.byteLength / 4} dimensions in a ${this.dim}-dimensional bank`);
    this.version++;
    let slot = this.slots.get(rid);
    if (slot === undefined) {
      if (this.size === this.rids.length) this.grow();
      slot = this.size++;
      this.slots.set(rid, slot);
      this.rids[slot] = rid;
      if (this.rare && this.rare.mask & (1 << kind)) this.rare.slots.push(slot);
    } else {
      this.kindCounts[this.kinds[slot]]--;
      if (this.kinds[slot] !== kind) this.rare = null;
    }
    this.kinds[slot] = kind;
    this.times[slot] = time;
    this.kindCounts[kind]++;
    new Uint8Array(this.data.buffer, slot * this.dim * 4, this.dim * 4).set(bytes);
  }

  remove(rid: number): void {
    const slot = this.slots.get(rid);
    if (slot === undefined) return;
    this.version++;
    this.rare = null; // the last slot moves into the hole
    this.kindCounts[this.kinds[slot]]--;
    const last = --this.size;
    if (slot !== last) {
      this.data.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.rids[slot] = this.rids[last];
      this.kinds[slot] = this.kinds[last];
      this.times[slot] = this.times[last];
      this.slots.set(this.rids[slot], slot);
    }
    this.slots.delete(rid);
  }

  /** The m stored vectors of the kinds in the mask with the largest inner product with q, best first, equal scores by
   * rowid (not by slot: a removal moves the last vector into the freed slot, so slot order is this memory's history,
   * and would differ after a restart or in an imported copy of the bank). Facts recorded after `before` (epoch ms) are
   * skipped. Large stores are ranked by usearch's SIMD scan first (see nativeBest); the answer is the same. */
  best(q: Float32Array, mask: number | null, m: number, before = Infinity): { rids: number[]; scores: number[] } {
    return (this.scanEnd(before) >= NATIVE_SCAN_MIN && this.nativeBest(q, mask, m, before)) || this.scanBest(q, mask, m, before);
  }

  /**
   * How many leading slots may hold vectors recorded by `before`: those after the last such one were recorded later
   * and are never ranked. A retain stores its facts before it links them and asks for the bank as it was before it
   * began, so its own facts are the store's tail: a scan that ranked them (copies of one sentence, each its own best
   * match) would fill every fetch with rows the bound then skips.
   */
  private scanEnd(before: number): number {
    if (before === Infinity) return this.size;
    const e = this.end;
    if (e?.before === before && e.version === this.version) return e.n;
    let n = this.size;
    while (n > 0 && this.times[n - 1] > before) n--;
    this.end = { before, version: this.version, n };
    return n;
  }

  /** best() by one scan into a bounded heap, so nothing of the bank's size is allocated. */
  private scanBest(q: Float32Array, mask: number | null, m: number, before: number): { rids: number[]; scores: number[] } {
    const { data, dim, size, kinds, rids, times } = this;
    const count = this.count(mask);
    const top = new TopK(Math.min(m, count));
    if (mask !== null && count * RARE_SHARE < size) {
      // A rare kind (a bank's observations among a million facts): its own slots, not a pass over every kind.
      for (const s of this.slotsOf(mask)) if (!(times[s] > before)) top.push(dot(data, s * dim, q, dim), rids[s]);
      const { positions, scores } = top.sorted();
      return { rids: positions, scores };
    }
    for (let s = 0, o = 0, end = this.scanEnd(before); s < end; s++, o += dim) {
      if ((mask !== null && !(mask & (1 << kinds[s]))) || times[s] > before) continue;
      top.push(dot(data, o, q, dim), rids[s]);
    }
    const { positions, scores } = top.sorted();
    return { rids: positions, scores };
  }

  /** The slots holding vectors of the kinds in the mask: one pass over the kinds, then kept as vectors are added
   * (a removal, which moves a slot, or a vector changing kind starts over). */
  private slotsOf(mask: number): number[] {
    if (this.rare?.mask === mask) return this.rare.slots;
    const slots: number[] = [];
    for (let s = 0; s < this.size; s++) if (mask & (1 << this.kinds[s])) slots.push(s);
    this.rare = { mask, slots };
    return slots;
  }

  /**
   * best() through usearch's exact scan, which runs about three times as fast as the JS loop (SIMD) but knows neither
   * kinds nor record times: it fetches the c best of every vector, the kinds and times are checked here (see settle);
   * else c grows, and null (scan instead) once c would be a large share of the store.
   */
  private nativeBest(q: Float32Array, mask: number | null, m: number, before: number): { rids: number[]; scores: number[] } | null {
    if (m <= 0 || q.length !== this.dim) return null;
    const end = this.scanEnd(before);
    let c = this.firstFetch(mask, m, end);
    while (c !== null) {
      const found = nativeSearch(this.data.subarray(0, end * this.dim), q, this.dim, c);
      const settled = this.settle(q, mask, m, before, found.rows, found.last, c, end);
      if (settled) return settled;
      c = widened(c, end);
    }
    return null;
  }

  /**
   * best() for several queries from batched products (core's batchTop), each settled as nativeBest settles its scan:
   * those it could not settle (ties at the cut: copies of one sentence) are ranked again together, fetching four times
   * as many, as nativeBest would one by one. Null for a query still unsettled once that would be a large share of the
   * store, and for all when the runtime is missing or the store changed meanwhile (best() answers those).
   */
  async bestMany(
    queries: Float32Array[],
    mask: number | null,
    m: number,
    before = Infinity,
    minScore = -Infinity,
  ): Promise<Array<{ rids: number[]; scores: number[] } | null>> {
    const out: Array<{ rids: number[]; scores: number[] } | null> = queries.map(() => null);
    const end = this.scanEnd(before);
    let c = m > 0 && end >= NATIVE_SCAN_MIN ? this.firstFetch(mask, m, end) : null;
    if (queries.some((q) => q.length !== this.dim)) return out;
    const version = this.version;
    for (let left = queries.map((_, i) => i); c !== null && left.length > 0; ) {
      const fetch = c;
      const found = await batchTop(
        this.data,
        end,
        this.dim,
        left.map((i) => queries[i]),
        fetch,
      );
      if (!found || this.version !== version) return queries.map(() => null);
      left = left.filter((i, j) => {
        out[i] = this.settle(queries[i], mask, m, before, found[j].rows, found[j].last, fetch, end, found[j].values, minScore);
        return out[i] === null;
      });
      c = widened(fetch, end);
    }
    return out;
  }

  /** How many of the first n slots to fetch first for the m best of the kinds in the mask (by their share); null when
   * that would be a large share of them (a rare kind: scanning only its vectors costs a fraction of ranking every one). */
  private firstFetch(mask: number | null, m: number, n: number): number | null {
    const share = Math.max(1, this.count(mask)) / this.size;
    const c = Math.min(n, Math.ceil(m / share) + 16);
    return c > n / 4 ? null : c;
  }

  /**
   * The m best among the c rows a native ranking of the first n slots fetched, rescored with the JS inner product and ranked as scanBest
   * ranks them, after the kinds and record times are checked. Final only when every vector left out scores clearly
   * below the m-th kept one (so float32 rounding in the native scan or ties at the cut cannot change it); else null.
   * With the rows' native scores and a minScore, rows clearly below it are not read: the ranking then holds those that
   * may reach it (fewer than m when fewer do), and is final once the rows left out all lie below it.
   */
  private settle(
    q: Float32Array,
    mask: number | null,
    m: number,
    before: number,
    rows: ArrayLike<bigint>,
    last: number,
    c: number,
    n: number,
    values?: ArrayLike<number>,
    minScore = -Infinity,
  ): { rids: number[]; scores: number[] } | null {
    const { data, dim, kinds, rids, times } = this;
    const floor = minScore - PRODUCT_SLACK;
    const top = new TopK(m);
    let kept = 0;
    for (let i = 0; i < rows.length; i++) {
      if (values && values[i] < floor) {
        const { positions, scores } = top.sorted();
        return { rids: positions, scores };
      }
      const s = Number(rows[i]);
      if ((mask !== null && !(mask & (1 << kinds[s]))) || times[s] > before) continue;
      top.push(dot(data, s * dim, q, dim), rids[s]);
      kept++;
    }
    const { positions, scores } = top.sorted();
    // The score of the last vector it fetched bounds every one left out.
    const leftOut = c < n ? last : -Infinity;
    return c >= n || leftOut < floor || (kept >= m && leftOut < scores[m - 1] - PRODUCT_SLACK) ? { rids: positions, scores } : null;
  }

  /** A store over arrays read from a snapshot (flat-body.cjs): `size` entries used, the rest room to grow. */
  static fromBody(
    dim: number,
    size: number,
    body: { rids: ArrayBuffer; times: ArrayBuffer; kinds: ArrayBuffer; data: ArrayBuffer },
  ): FlatVectors | null {
    const flat = new FlatVectors(dim, 0);
    flat.rids = new Float64Array(body.rids);
    flat.times = new Float64Array(body.times);
    flat.kinds = new Uint8Array(body.kinds);
    flat.data = new Float32Array(body.data);
    if (flat.rids.length < size || flat.data.length !== flat.rids.length * dim) return null;
    for (let s = 0; s < size; s++) {
      if (flat.kinds[s] > 3) return null;
      flat.kindCounts[flat.kinds[s]]++;
    }
    flat.size = size;
    return flat;
  }

  private grow(): void {
    const capacity = this.rids.length * 2;
    const data = new Float32Array(capacity * this.dim);
    data.set(this.data);
    const rids = new Float64Array(capacity);
    rids.set(this.rids);
    const kinds = new Uint8Array(capacity);
    kinds.set(this.kinds);
    const times = new Float64Array(capacity);
    times.set(this.times);
    this.data = data;
    this.rids = rids;
    this.kinds = kinds;
    this.times = times;
  }
}
