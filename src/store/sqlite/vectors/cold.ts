// A bank's vectors searched straight from its flat snapshot file while a worker thread reads the file into memory
// (flat-file.ts): the first searches after a start do not wait for hundreds of megabytes to be read and paged in
// (seconds at a million vectors on a small virtual machine, where touching new memory is what costs). The file's
// rids, kinds and record times are held (17 bytes a vector); its vectors stream through one buffer on every search.
// Changes logged after the snapshot are held beside it: a changed vector's copy in the file is skipped, its current
// one (if any) searched from memory. The first search checks the body against its checksum before it answers: a
// damaged file is never used. Answers equal those of the same store held in memory (FlatVectors.best).
import { dot, PRODUCT_SLACK, TopK } from '../../../core/index.ts';
import { FlatVectors, NATIVE_SCAN_MIN, nativeSearch } from './flat.ts';
import { type FlatFile, flatBody } from './flat-file.ts';

/** Kind code of a file's vector changed since the snapshot: no kinds mask names it. */
const CHANGED = 4;
/** The mask of every kind (a null mask would count the changed vectors too). */
const EVERY_KIND = 0b1111;

/** The snapshot's body does not match its checksum: nothing read from it may be used. */
export class SnapshotDamaged extends Error {}

/** A change logged after the snapshot: the vector's bytes now (null: deleted), its fact's kind and record time. */
export interface LoggedChange {
  bytes: Buffer | null;
  kind: number;
  time: number;
}

export class ColdFlat {
  readonly dim: number;
  /** The change seq the store reflects (the snapshot's, then the last change applied). */
  seq: number;
  private readonly inFile: number;
  private readonly vectorsAt: number;
  private readonly rids: Float64Array;
  private readonly times: Float64Array;
  /** The file's kinds, CHANGED where a logged change replaced or removed the vector. */
  private readonly kinds: Uint8Array;
  /** The file's vectors per kind, the changed ones left out. */
  private readonly kindCounts = [0, 0, 0, 0];
  private changedInFile = 0;
  /** Rids of every logged change applied. */
  private readonly changed = new Set<number>();
  /** The vectors those changes put. */
  private readonly fresh: FlatVectors;
  /** The body's check, fed the vectors by the first full scan; null once it passed. */
  private check: { update(bytes: Uint8Array): void; digest(): string } | null;
  private readonly expected: string;
  private readonly buffer: Float32Array;

  /** Reads the file's rids, times and kinds (not its vectors); its vectors are read `perRead` at a time (by default
   * some megabytes' worth). Throws when the file cannot be read. */
  constructor(
    private readonly file: FlatFile,
    perRead?: number,
  ) {
    const { header } = file;
    const n = header.size;
    this.dim = header.dim;
    this.seq = header.seq;
    this.inFile = n;
    const at = file.sections;
    this.vectorsAt = at.vectors;
    this.rids = new Float64Array(n);
    this.times = new Float64Array(n);
    this.kinds = new Uint8Array(Math.ceil(n / 8) * 8);
    this.check = file.check();
    this.expected = (header.format === 2 ? header.crc32 : header.sha256) ?? '';
    for (const [bytes, position] of [
      [bytesOf(this.rids), at.rids],
      [bytesOf(this.times), at.times],
      [this.kinds, at.kinds],
    ] as const) {
      flatBody.readFully(file.fd, bytes, position);
      this.check.update(bytes);
    }
    for (let s = 0; s < n; s++) {
      if (this.kinds[s] > 3) throw new SnapshotDamaged('a kind code out of range');
      this.kindCounts[this.kinds[s]]++;
    }
    this.fresh = new FlatVectors(this.dim, 0);
    const vectors = perRead ?? Math.max(1, Math.floor(flatBody.READ_CHUNK / Math.max(1, this.dim * 4)));
    this.buffer = new Float32Array(Math.min(vectors, Math.max(1, n)) * this.dim);
  }

  get size(): number {
    return this.inFile - this.changedInFile + this.fresh.size;
  }

  count(mask: number | null): number {
    const inFile = this.kindCounts.reduce((sum, n, code) => (mask === null || mask & (1 << code) ? sum + n : sum), 0);
    return inFile + this.fresh.count(mask);
  }

  countBefore(mask: number | null, before: number): number {
    const m = mask ?? EVERY_KIND;
    let n = 0;
    for (let s = 0; s < this.inFile; s++) if (m & (1 << this.kinds[s]) && !(this.times[s] > before)) n++;
    return n + this.fresh.countBefore(mask, before);
  }

  /** Applies changes logged after seq up to `seq`; false when one holds a vector of another size (reload). */
  apply(changes: Map<number, LoggedChange>, seq: number): boolean {
    for (const { bytes } of changes.values()) if (bytes && bytes.byteLength !== this.dim * 4) return false;
    const first = new Set([...changes.keys()].filter((rid) => !this.changed.has(rid)));
    if (first.size) {
      for (let s = 0; s < this.inFile; s++) {
        if (this.kinds[s] !== CHANGED && first.has(this.rids[s])) {
          this.kindCounts[this.kinds[s]]--;
          this.kinds[s] = CHANGED;
          this.changedInFile++;
        }
      }
      for (const rid of first) this.changed.add(rid);
    }
    for (const [rid, { bytes, kind, time }] of changes) {
      if (bytes) this.fresh.put(rid, bytes, kind, time);
      else this.fresh.remove(rid);
    }
    this.seq = seq;
    return true;
  }

  /** Up to n slots of the file spread over it whose vectors no logged change replaced, with their rids. */
  samples(n: number): Array<{ slot: number; rid: number }> {
    const step = Math.max(1, Math.floor(this.inFile / n));
    const out: Array<{ slot: number; rid: number }> = [];
    for (let s = 0; s < this.inFile; s += step) if (this.kinds[s] !== CHANGED) out.push({ slot: s, rid: this.rids[s] });
    return out;
  }

  /** The file's bytes of the vector in a slot. */
  vectorBytes(slot: number): Buffer {
    const bytes = Buffer.alloc(this.dim * 4);
    flatBody.readFully(this.file.fd, bytes, this.vectorsAt + slot * this.dim * 4);
    return bytes;
  }

  /**
   * As FlatVectors.best: the m best vectors of the kinds in the mask recorded by `before`, best first, equal scores by
   * rid. One pass over the file, a bufferful at a time, each ranked by usearch's scan for its c best (c from the share
   * the filter keeps) and those rescored; a part whose c-th native score does not lie clearly below the final m-th
   * score could hide a better vector and is read again and scanned whole. The first pass checks the body against its
   * checksum and throws SnapshotDamaged rather than answer from a damaged file.
   */
  best(q: Float32Array, mask: number | null, m: number, before = Infinity): { rids: number[]; scores: number[] } {
    const { dim, buffer, kinds, times, rids } = this;
    const wanted = mask ?? EVERY_KIND;
    const keeps = (s: number): boolean => (wanted & (1 << kinds[s])) !== 0 && !(times[s] > before);
    const top = new TopK(m);
    const perRead = buffer.length / dim;
    const unsure: Array<{ first: number; n: number; last: number; taken: Set<number> }> = [];
    /** Pushes every kept vector of the part in the buffer (from slot first), but those already taken. */
    const scanPart = (first: number, n: number, taken: Set<number> | null): void => {
      for (let s = first; s < first + n; s++) if (keeps(s) && !taken?.has(s)) top.push(dot(buffer, (s - first) * dim, q, dim), rids[s]);
    };
    for (let first = 0; first < this.inFile; first += perRead) {
      const n = Math.min(perRead, this.inFile - first);
      this.readVectors(first, n);
      let kept = 0;
      for (let s = first; s < first + n; s++) if (keeps(s)) kept++;
      if (kept === 0) continue;
      const c = Math.min(n, Math.ceil((m * n) / kept) + 16);
      if (n < NATIVE_SCAN_MIN || c > n / 4) {
        scanPart(first, n, null);
        continue;
      }
      const found = nativeSearch(buffer.subarray(0, n * dim), q, dim, c);
      const taken = new Set<number>();
      for (let i = 0; i < found.rows.length; i++) {
        const s = first + Number(found.rows[i]);
        taken.add(s);
        if (keeps(s)) top.push(dot(buffer, (s - first) * dim, q, dim), rids[s]);
      }
      unsure.push({ first, n, last: found.last, taken });
    }
    if (this.check) {
      const matches = this.check.digest() === this.expected;
      this.check = null;
      if (!matches) throw new SnapshotDamaged('the flat snapshot does not match its checksum');
    }
    const ranked = top.sorted();
    const cut = ranked.scores.length >= m ? ranked.scores[m - 1] : -Infinity;
    for (const part of unsure) {
      if (part.last < cut - PRODUCT_SLACK) continue;
      this.readVectors(part.first, part.n);
      scanPart(part.first, part.n, part.taken);
    }
    const mine = this.fresh.best(q, mask, m, before);
    for (let i = 0; i < mine.rids.length; i++) top.push(mine.scores[i], mine.rids[i]);
    const { positions, scores } = top.sorted();
    return { rids: positions, scores };
  }

  /** Reads the file's vectors of n slots from slot first into the buffer (the first pass feeds them to the check). */
  private readVectors(first: number, n: number): void {
    const bytes = new Uint8Array(this.buffer.buffer, 0, n * this.dim * 4);
    flatBody.readFully(this.file.fd, bytes, this.vectorsAt + first * this.dim * 4);
    this.check?.update(bytes);
  }
}

const bytesOf = (array: Float64Array): Uint8Array => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
