// The HNSW graph of a bank (hnswlib, inner-product space, labels = fact rids), with the bookkeeping hnswlib does
// not expose: which labels are live, which are deleted, and how many deleted slots can be reused. And where the
// worker that builds one off the main thread lives (build-worker.cjs).
import hnswlib from 'hnswlib-node';
import { createRequire } from 'node:module';
import type { FlatVectors } from './flat.ts';

export type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

export class HnswGraph {
  readonly live = new Set<number>();
  private readonly dead = new Set<number>();
  private deleted = 0;

  constructor(readonly index: Graph, readonly source: 'built' | 'snapshot') {}

  /** Loads an index file, always into a fresh object: hnswlib cannot recover a failed load. */
  static async read(file: string, dim: number, efSearch: number, source: 'built' | 'snapshot'): Promise<HnswGraph> {
    const index = new hnswlib.HierarchicalNSW('ip', dim);
    await index.readIndex(file, true);
    index.setEf(efSearch);
    return new HnswGraph(index, source);
  }

  /** Aligns the graph's membership with the flat store; returns how many labels had to change. */
  reconcile(flat: FlatVectors): number {
    let changed = 0;
    for (const label of this.index.getIdsList()) {
      if (flat.has(label)) {
        this.live.add(label);
        continue;
      }
      try {
        this.index.markDelete(label);
        changed++;
      } catch {
        // already marked deleted in the loaded graph
      }
      this.dead.add(label);
      this.deleted++;
    }
    for (let s = 0; s < flat.size; s++) {
      const rid = flat.rids[s];
      if (!this.live.has(rid)) {
        this.upsert(rid, flat.vector(rid)!);
        changed++;
      }
    }
    return changed;
  }

  upsert(rid: number, vector: Float32Array): void {
    if (rid > 0xffffffff) throw new Error(`fact rid ${rid} does not fit an HNSW label`);
    const point = Array.from(vector);
    if (this.live.has(rid)) {
      try {
        this.index.addPoint(point, rid);
      } catch {
        // the label was marked deleted after all (a snapshot out of step): bring it back
        this.index.unmarkDelete(rid);
        this.index.addPoint(point, rid);
      }
      return;
    }
    if (this.dead.delete(rid)) {
      try {
        this.index.unmarkDelete(rid);
        this.deleted--;
        this.index.addPoint(point, rid);
        this.live.add(rid);
        return;
      } catch {
        // its slot was reused by another label meanwhile: add it afresh
      }
    }
    if (this.deleted === 0 && this.index.getCurrentCount() >= this.index.getMaxElements()) this.grow();
    try {
      this.index.addPoint(point, rid, true);
    } catch {
      this.grow(); // full after all (the deleted count was off)
      this.index.addPoint(point, rid, true);
    }
    if (this.deleted > 0) this.deleted--;
    this.live.add(rid);
  }

  private grow(): void {
    this.index.resizeIndex(Math.ceil(this.index.getMaxElements() * 1.5) + 1024);
  }

  remove(rid: number): void {
    if (!this.live.delete(rid)) return;
    this.index.markDelete(rid);
    this.dead.add(rid);
    this.deleted++;
  }

  /** The m nearest live labels and their inner products, best first. */
  search(query: number[], m: number): { rids: number[]; scores: number[] } {
    const { neighbors, distances } = this.index.searchKnn(query, Math.min(m, this.live.size, this.index.getMaxElements()));
    return { rids: neighbors, scores: distances.map((d) => 1 - d) };
  }

  /** True when the sampled labels hold exactly the flat store's vectors. */
  matches(flat: FlatVectors, samples: number): boolean {
    const step = Math.max(1, Math.floor(flat.size / samples));
    for (let s = 0; s < flat.size; s += step) {
      const rid = flat.rids[s];
      const want = flat.vector(rid)!;
      let got: number[];
      try {
        got = this.index.getPoint(rid);
      } catch {
        return false;
      }
      for (let i = 0; i < want.length; i++) if (Math.abs(got[i] - want[i]) > 1e-6) return false;
    }
    return true;
  }
}

// Builds an HNSW index file in a worker thread (plain JS, so it needs no TypeScript loader). It is stopped by a flag
// it reads between points, never by terminating it: a thread terminated inside hnswlib's addPoint aborts the whole
// process (the addon throws into a dying isolate), which closing the store during a background build used to do.
export const HNSW_ADDON = createRequire(import.meta.url).resolve('hnswlib-node');
export const BUILD_WORKER = new URL('./build-worker.cjs', import.meta.url);
