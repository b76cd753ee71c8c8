// A bank's vectors in memory ("flat storage"): every vector in one contiguous Float32Array (dense: a delete moves the
// last slot into the hole), with each fact's kind and record time. It is the in-memory truth: exact search scans it,
// the HNSW graph is built from it and checked against it. A fact's kind and record time never change, so a kinds
// filter and a recordedBefore bound pick its slots without SQL (a retain linking its facts asks for the bank as it
// was before it began). Also the stored form of a vector, and the flat snapshot's encoding.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dot, TopK } from '../../../core/index.ts';

// usearch (CommonJS build: its ES module finds its native addon from the call stack, which fails in some loaders).
const usearch = createRequire(import.meta.url)('usearch') as { exactSearch: (...args: unknown[]) => unknown };
/** Stores at least this large are ranked by usearch first: below it the call costs more than the JS scan saves. */
export const NATIVE_SCAN_MIN = 1024;
/** How far below the m-th kept score the native scan's cut must lie (float32 rounding of a 100-1024-d product). */
const NATIVE_SCORE_SLACK = 1e-4;

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
  readonly slots = new Map<number, number>();
  /** Vectors per kind code. */
  readonly kindCounts = [0, 0, 0, 0];
  size = 0;

  constructor(readonly dim: number, capacity: number) {
    this.data = new Float32Array(Math.max(16, capacity) * dim);
    this.rids = new Float64Array(Math.max(16, capacity));
    this.kinds = new Uint8Array(Math.max(16, capacity));
    this.times = new Float64Array(Math.max(16, capacity));
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
    return slot === undefined ? null : this.data.subarray(slot * this.dim, (slot + 1) * this.dim);
  }

  /** Stores the vector of rid from its stored bytes (no intermediate copy). */
  put(rid: number, bytes: Uint8Array, kind: number, time: number): void {
    if (bytes.byteLength !== this.dim * 4) throw new Error(`vector of ${bytes.byteLength / 4} dimensions in a ${this.dim}-dimensional bank`);
    let slot = this.slots.get(rid);
    if (slot === undefined) {
      if (this.size === this.rids.length) this.grow();
      slot = this.size++;
      this.slots.set(rid, slot);
      this.rids[slot] = rid;
    } else {
      this.kindCounts[this.kinds[slot]]--;
    }
    this.kinds[slot] = kind;
    this.times[slot] = time;
    this.kindCounts[kind]++;
    new Uint8Array(this.data.buffer, slot * this.dim * 4, this.dim * 4).set(bytes);
  }

  remove(rid: number): void {
    const slot = this.slots.get(rid);
    if (slot === undefined) return;
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
    return (this.size >= NATIVE_SCAN_MIN && this.nativeBest(q, mask, m, before)) || this.scanBest(q, mask, m, before);
  }

  /** best() by one scan into a bounded heap, so nothing of the bank's size is allocated. */
  private scanBest(q: Float32Array, mask: number | null, m: number, before: number): { rids: number[]; scores: number[] } {
    const { data, dim, size, kinds, rids, times } = this;
    const top = new TopK(Math.min(m, this.count(mask)));
    for (let s = 0, o = 0; s < size; s++, o += dim) {
      if ((mask !== null && !(mask & (1 << kinds[s]))) || times[s] > before) continue;
      top.push(dot(data, o, q, dim), rids[s]);
    }
    const { positions, scores } = top.sorted();
    return { rids: positions, scores };
  }

  /**
   * best() through usearch's exact scan, which runs about three times as fast as the JS loop (SIMD) but knows neither
   * kinds nor record times: it fetches the c best of every vector, the kinds and times are checked here, and the
   * candidates are rescored with the JS inner product and ranked as scanBest ranks them. The answer is final only when
   * every vector left out scores clearly below the m-th kept one (so float32 rounding in the native scan or ties at
   * the cut cannot change it); else c grows, and null (scan instead) once c would be a large share of the store.
   */
  private nativeBest(q: Float32Array, mask: number | null, m: number, before: number): { rids: number[]; scores: number[] } | null {
    const { data, dim, size, kinds, rids, times } = this;
    if (m <= 0 || q.length !== dim) return null;
    const share = Math.max(1, this.count(mask)) / size;
    let c = Math.min(size, Math.ceil(m / share) + 16);
    for (;;) {
      const found = usearch.exactSearch(data.subarray(0, size * dim), q, dim, c, 'ip', 1) as { keys: BigUint64Array; distances: Float32Array };
      const top = new TopK(m);
      let kept = 0;
      for (let i = 0; i < found.keys.length; i++) {
        const s = Number(found.keys[i]);
        if ((mask !== null && !(mask & (1 << kinds[s]))) || times[s] > before) continue;
        top.push(dot(data, s * dim, q, dim), rids[s]);
        kept++;
      }
      const { positions, scores } = top.sorted();
      // usearch's inner-product distance is 1 - q·v: the score of the last vector it fetched bounds every one left out.
      const leftOut = c < size ? 1 - found.distances[found.keys.length - 1] : -Infinity;
      if (c >= size || (kept >= m && leftOut < scores[m - 1] - NATIVE_SCORE_SLACK)) return { rids: positions, scores };
      c = Math.min(size, c * 4);
      if (c > size / 4) return null;
    }
  }

  /** The store as one buffer: a header line (with the sha256 of the rest), then rids, times, kinds and vectors. */
  encode(header: Omit<FlatHeader, 'sha256'>): Buffer {
    const n = this.size;
    const kindBytes = Math.ceil(n / 8) * 8;
    // The header line's length does not depend on the hash (64 hex digits): sized with a stand-in, written last. The
    // body starts at a multiple of 8 bytes (spaces pad the header line).
    const line = (sha256: string): string => JSON.stringify({ ...header, sha256 });
    const start = Math.ceil((Buffer.byteLength(line('0'.repeat(64))) + 1) / 8) * 8;
    const out = Buffer.alloc(start + n * 16 + kindBytes + n * this.dim * 4);
    out.set(new Uint8Array(this.rids.buffer, 0, n * 8), start);
    out.set(new Uint8Array(this.times.buffer, 0, n * 8), start + n * 8);
    out.set(this.kinds.subarray(0, n), start + n * 16);
    out.set(new Uint8Array(this.data.buffer, 0, n * this.dim * 4), start + n * 16 + kindBytes);
    const head = line(createHash('sha256').update(out.subarray(start)).digest('hex'));
    out.write(head + ' '.repeat(start - 1 - Buffer.byteLength(head)) + '\n', 0, 'utf8');
    return out;
  }

  /** A store read back from encode()'s buffer, with its header; null when the buffer is not one, or not whole. */
  static decode(buffer: Buffer): { header: FlatHeader; flat: FlatVectors } | null {
    const nl = buffer.indexOf(10);
    if (nl < 0 || nl > 4096) return null;
    const header = JSON.parse(buffer.subarray(0, nl).toString('utf8')) as FlatHeader;
    const n = header.size;
    const start = nl + 1;
    const kindBytes = Math.ceil(n / 8) * 8;
    if (header.format !== 1 || !Number.isInteger(n) || n < 0 || start % 8 !== 0) return null;
    if (buffer.length !== start + n * 16 + kindBytes + n * header.dim * 4) return null;
    if (createHash('sha256').update(buffer.subarray(start)).digest('hex') !== header.sha256) return null;
    const flat = new FlatVectors(header.dim, n);
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset + start, buffer.byteLength - start);
    new Uint8Array(flat.rids.buffer).set(bytes.subarray(0, n * 8));
    new Uint8Array(flat.times.buffer).set(bytes.subarray(n * 8, n * 16));
    flat.kinds.set(bytes.subarray(n * 16, n * 17));
    new Uint8Array(flat.data.buffer).set(bytes.subarray(n * 16 + kindBytes, n * 16 + kindBytes + n * header.dim * 4));
    flat.size = n;
    for (let s = 0; s < n; s++) {
      flat.slots.set(flat.rids[s], s);
      flat.kindCounts[flat.kinds[s]]++;
    }
    if (flat.slots.size !== n) return null;
    return { header, flat };
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

/** The flat snapshot <key>.flat: the bank's flat store as of change seq, read at start instead of every vector row
 * (100k rows take most of a second from SQLite, the file a few tens of milliseconds), then caught up from
 * vector_changes. Written then renamed, so a partial file never has the name. */
export interface FlatHeader {
  format: 1;
  bankId: string;
  bankCreatedAt: string;
  dim: number;
  seq: number;
  size: number;
  /** Of everything after the header line. */
  sha256: string;
}
