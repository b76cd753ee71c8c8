// The HNSW graph of a bank (hnswlib, inner-product space, labels = fact rids), with the bookkeeping hnswlib does
// not expose: which labels are live, which are deleted, and how many deleted slots can be reused. And where the
// worker that builds one off the main thread lives (build-worker.cjs).
import hnswlib from 'hnswlib-node';
import { createRequire } from 'node:module';
import { dot, TopK } from '../../../core/index.ts';
import { CopyLists, sortedIndexOf } from './copies.ts';
import type { FlatVectors } from './flat.ts';

export type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

/** The live labels of a graph: the sorted labels it was reconciled with (held as one array: a million of them take
 * a fifth of the time a Set takes to fill), and the labels added and removed since. */
export class Labels {
  private readonly added = new Set<number>();
  private readonly removed = new Set<number>();

  /** base: ascending, no repeats. */
  constructor(private readonly base: Float64Array = new Float64Array(0)) {}

  get size(): number {
    return this.base.length - this.removed.size + this.added.size;
  }

  has(label: number): boolean {
    return this.added.has(label) || (!this.removed.has(label) && this.inBase(label));
  }

  add(label: number): void {
    if (this.inBase(label)) this.removed.delete(label);
    else this.added.add(label);
  }

  /** Removes a live label; false when it was not live. */
  delete(label: number): boolean {
    if (!this.has(label)) return false;
    if (!this.added.delete(label)) this.removed.add(label);
    return true;
  }

  private inBase(label: number): boolean {
    return sortedIndexOf(this.base, label) >= 0;
  }
}

/** Labels waiting to enter a graph, by record time: a search bounded before a retain began scores only those recorded
 * by then, not the thousands the retain itself has written meanwhile, and the earliest enter the graph first. */
export class PendingLabels {
  /** rid -> record time (epoch ms): the truth. */
  private readonly times = new Map<number, number>();
  /** The same in record-time order from `head` on (ties in the order added), with stale entries (a label since added
   * to the graph, removed, or pending again with another time) skipped wherever it is read. */
  private order: Array<{ rid: number; time: number }> = [];
  private head = 0;
  private sorted = true;

  get size(): number {
    return this.times.size;
  }

  has(rid: number): boolean {
    return this.times.has(rid);
  }

  add(rid: number, time: number): void {
    if (this.times.get(rid) === time) return;
    this.times.set(rid, time);
    const last = this.order[this.order.length - 1];
    if (last !== undefined && time < last.time) this.sorted = false;
    this.order.push({ rid, time });
  }

  delete(rid: number): void {
    this.times.delete(rid);
  }

  /** Takes the earliest recorded pending label. */
  shift(): number | undefined {
    this.sort();
    while (this.head < this.order.length) {
      const { rid, time } = this.order[this.head++];
      if (this.times.get(rid) !== time) continue;
      this.times.delete(rid);
      if (this.head > 1024 && this.head * 2 > this.order.length) {
        this.order = this.order.slice(this.head);
        this.head = 0;
      }
      return rid;
    }
    return undefined;
  }

  /** Calls back with each pending label recorded by `before` (epoch ms). */
  recordedBy(before: number, each: (rid: number) => void): void {
    this.sort();
    for (let i = this.head; i < this.order.length; i++) {
      const { rid, time } = this.order[i];
      if (time > before) break;
      if (this.times.get(rid) === time) each(rid);
    }
  }

  /** About how many pending labels were recorded by `before` (epoch ms): an upper bound (stale entries count). */
  countBy(before: number): number {
    this.sort();
    let lo = this.head;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order[mid].time > before) hi = mid;
      else lo = mid + 1;
    }
    return lo - this.head;
  }

  private sort(): void {
    if (this.sorted) return;
    this.order = [...this.times].map(([rid, time]) => ({ rid, time })).sort((a, b) => a.time - b.time);
    this.head = 0;
    this.sorted = true;
  }
}

/** The candidate list of the search for a node holding a vector exactly, before adding it: at 4 it found all but a
 * few in a thousand of the copies 100 does, and a search of 100 costs most of an insertion. */
const TWIN_EF = 4;

/** Whether two vectors are the same, value for value. */
const same = (a: ArrayLike<number>, b: ArrayLike<number>): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

export class HnswGraph {
  live = new Labels();
  /** Labels whose current vector (in the flat store) the graph does not hold yet: they are added a few at a time
   * (see upsertPending), as one insertion costs up to a millisecond on the thread that serves every request, and a
   * search scores them exactly beside what the graph finds. */
  private readonly pending = new PendingLabels();
  private readonly dead = new Set<number>();
  private deleted = 0;
  /** Exact copies of a node's vector are listed beside the node instead of entering the graph. In a graph made mostly
   * of copies of a few vectors (a pasted block repeated), hnswlib's neighbour selection and its searches stay among
   * the copies and leave the other vectors unreachable: a fact's own text stopped finding it. One node per distinct
   * vector keeps every vector reachable. */
  private copies = new CopyLists();

  constructor(
    readonly index: Graph,
    readonly source: 'built' | 'snapshot',
  ) {}

  /** Loads an index file, always into a fresh object (hnswlib cannot recover a failed load), with the copies listed
   * beside its nodes (pairs of copy and node labels, ascending by copy). */
  static async read(
    file: string,
    dim: number,
    efSearch: number,
    source: 'built' | 'snapshot',
    copies: Float64Array = new Float64Array(0),
  ): Promise<HnswGraph> {
    const index = new hnswlib.HierarchicalNSW('ip', dim);
    await index.readIndex(file, true);
    index.setEf(efSearch);
    const graph = new HnswGraph(index, source);
    graph.copies = new CopyLists(copies);
    return graph;
  }

  /** Live labels: the graph's nodes and the copies listed beside them. */
  get size(): number {
    return this.live.size + this.copies.size;
  }

  /** The copies beside the nodes, as pairs of copy and node labels ascending by copy (what a snapshot keeps with the
   * index file). */
  copyPairs(): Float64Array {
    return this.copies.pairs();
  }

  /** Aligns the graph's membership with the flat store (labels it lacks become pending); returns how many labels had to
   * change. Both sides sorted and walked together: no per-label lookup in a map of the whole bank. */
  reconcile(flat: FlatVectors): number {
    const labels = Float64Array.from(this.index.getIdsList()).sort();
    const rids = flat.rids.slice(0, flat.size).sort();
    let changed = 0;
    // Copies of a node the graph does not hold are dropped (they become pending below), and so are those gone from the
    // store: the copies, ascending, are walked beside the store's labels too.
    for (const node of this.copies.nodes())
      if (sortedIndexOf(labels, node) < 0 || this.pointOf(node) === null) changed += this.copies.dropNode(node).length;
    const copies = this.copies.pairs();
    const gone: number[] = [];
    const common = new Float64Array(Math.min(labels.length, rids.length));
    const orphans: number[] = [];
    let kept = 0;
    for (let i = 0, j = 0, k = 0; i < labels.length || j < rids.length || k < copies.length; ) {
      if (k < copies.length && (j >= rids.length || copies[k] <= rids[j])) {
        // a copy beside a node the graph holds, or one gone from the store
        if (copies[k] === rids[j]) j++;
        else gone.push(copies[k]);
        k += 2;
      } else if (i < labels.length && j < rids.length && labels[i] === rids[j]) {
        common[kept++] = labels[i++];
        j++;
      } else if (j >= rids.length || (i < labels.length && labels[i] < rids[j])) {
        const label = labels[i++]; // in the graph, not in the store
        changed++;
        if (this.copies.hasCopies(label)) {
          orphans.push(label); // removed once its vector went to one of its copies
          continue;
        }
        try {
          this.index.markDelete(label);
        } catch {
          changed--; // already marked deleted in the loaded graph
        }
        this.dead.add(label);
        this.deleted++;
      } else {
        this.markPending(rids[j++], flat); // in the store, not in the graph
        changed++;
      }
    }
    for (const copy of gone) this.copies.detach(copy);
    changed += gone.length;
    this.live = new Labels(common.subarray(0, kept));
    for (const label of orphans) {
      this.live.add(label);
      this.remove(label);
    }
    return changed;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** About how many pending labels a search bounded by `before` (epoch ms) scores one by one (at most). */
  pendingBy(before: number): number {
    return this.pending.countBy(before);
  }

  /** Notes that the graph lacks the flat store's current vector of rid (or holds one the store no longer has). */
  markPending(rid: number, flat: FlatVectors): void {
    const slot = flat.slots.get(rid);
    // A label gone from the store is never scored; one without a known record time passes every bound.
    this.pending.add(rid, slot === undefined ? Infinity : Number.isNaN(flat.times[slot]) ? -Infinity : flat.times[slot]);
  }

  /** Adds up to n pending labels' vectors from the flat store, earliest recorded first (one gone from it meanwhile is
   * removed instead); returns how many remain pending. */
  upsertPending(flat: FlatVectors, n = Infinity): number {
    for (let i = 0; i < n; i++) {
      const rid = this.pending.shift();
      if (rid === undefined) break;
      const vector = flat.vector(rid);
      if (vector) this.upsert(rid, vector);
      else this.remove(rid);
    }
    return this.pending.size;
  }

  upsert(rid: number, vector: Float32Array): void {
    if (rid > 0xffffffff) throw new Error(`fact rid ${rid} does not fit an HNSW label`);
    const point = Array.from(vector);
    const node = this.copies.nodeOf(rid);
    if (node !== undefined) {
      if (same(this.index.getPoint(node), point)) return; // a copy still
      this.copies.detach(rid);
    }
    if (this.live.has(rid)) {
      const held = this.pointOf(rid); // null: marked deleted after all, re-added below
      if (held && same(held, point)) return;
      // Now a copy of another node: it leaves the graph (its own copies keep the vector it had: one of them takes its
      // place) and is listed beside that node. Else it is updated in place, its copies handed over the same way.
      const twin = this.twinOf(point);
      if (held && twin !== undefined && twin !== rid) {
        this.remove(rid);
        this.copies.attach(rid, twin);
        return;
      }
      if (held) this.promote(rid);
      try {
        this.index.addPoint(point, rid);
      } catch {
        // the label was marked deleted after all (a snapshot out of step): bring it back
        this.index.unmarkDelete(rid);
        this.index.addPoint(point, rid);
      }
      return;
    }
    const twin = this.twinOf(point);
    if (twin === undefined) this.insert(rid, point);
    else this.copies.attach(rid, twin);
  }

  /** Adds a label that is not live as a node. */
  private insert(rid: number, point: number[]): void {
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

  /** The node holding exactly this vector, if the graph's nearest node does (for unit vectors the same vector is the
   * nearest by inner product; a miss only costs a node). */
  private twinOf(point: number[]): number | undefined {
    if (this.live.size === 0) return undefined;
    const ef = this.index.getEf();
    try {
      this.index.setEf(TWIN_EF);
      const [nearest] = this.index.searchKnn(point, 1).neighbors;
      return nearest !== undefined && !this.pending.has(nearest) && same(this.index.getPoint(nearest), point) ? nearest : undefined;
    } catch {
      return undefined;
    } finally {
      this.index.setEf(ef);
    }
  }

  /** The vector the graph holds for the label, or null (none, or marked deleted). */
  private pointOf(label: number): number[] | null {
    try {
      return this.index.getPoint(label);
    } catch {
      return null;
    }
  }

  /** Hands a node's copies to a new node of its vector (before the node is removed or changed): the first of them not
   * pending. Pending ones are about to change or go (a pasted block deleted oldest first would otherwise insert a node
   * for each copy in turn); when all are, they are taken off the lists and each finds its place when its turn comes. */
  private promote(node: number): void {
    if (!this.copies.hasCopies(node)) return;
    const vector = this.index.getPoint(node);
    const next = this.copies.handOver(node, (copy) => !this.pending.has(copy));
    if (next !== undefined) this.insert(next, vector);
    else this.copies.dropNode(node);
  }

  private grow(): void {
    this.index.resizeIndex(Math.ceil(this.index.getMaxElements() * 1.5) + 1024);
  }

  remove(rid: number): void {
    this.pending.delete(rid);
    if (this.copies.nodeOf(rid) !== undefined) {
      this.copies.detach(rid);
      return;
    }
    if (!this.live.has(rid)) return;
    this.promote(rid);
    this.live.delete(rid);
    this.index.markDelete(rid);
    this.dead.add(rid);
    this.deleted++;
  }

  /** The m nearest live labels and their inner products, best first: the graph's answer (each node with its copies,
   * in ascending order as an exact scan ranks equal scores; without labels whose vector it holds is not their current
   * one) merged with the pending labels recorded by `before` (epoch ms; the later ones could not pass a search bounded
   * by it, and a retain's own facts are most of those pending while it runs), scored exactly from the flat store. */
  search(query: number[], m: number, flat: FlatVectors, before = Infinity): { rids: number[]; scores: number[] } {
    const size = Math.min(m, this.live.size, this.index.getMaxElements());
    const { neighbors, distances } = size > 0 ? this.index.searchKnn(query, size) : { neighbors: [], distances: [] };
    if (this.pending.size === 0 && this.copies.size === 0) return { rids: neighbors, scores: distances.map((d) => 1 - d) };
    const rids: number[] = [];
    const scores: number[] = [];
    const found = (rid: number, score: number): boolean => {
      if (!this.pending.has(rid)) {
        rids.push(rid);
        scores.push(score);
      }
      return rids.length < m;
    };
    for (let i = 0; i < neighbors.length; i++) {
      const score = 1 - distances[i];
      let more = true;
      this.copies.ranked(neighbors[i], (label) => (more = found(label, score)));
      if (!more) break;
    }
    if (this.pending.size === 0) return { rids, scores };
    const top = new TopK(m, 'double');
    for (let i = 0; i < rids.length; i++) top.push(scores[i], rids[i]);
    const q = Float32Array.from(query);
    const { slots, data, dim } = flat;
    this.pending.recordedBy(before, (rid) => {
      const slot = slots.get(rid);
      if (slot !== undefined) top.push(dot(data, slot * dim, q, dim), rid);
    });
    const { positions, scores: best } = top.sorted();
    return { rids: positions, scores: best };
  }

  /** True when the sampled labels hold exactly the flat store's vectors (a copy: its node's). */
  matches(flat: FlatVectors, samples: number): boolean {
    const step = Math.max(1, Math.floor(flat.size / samples));
    for (let s = 0; s < flat.size; s += step) {
      const rid = flat.rids[s];
      if (this.pending.has(rid)) continue;
      const want = flat.vectorAt(s);
      let got: number[];
      try {
        got = this.index.getPoint(this.copies.nodeOf(rid) ?? rid);
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
