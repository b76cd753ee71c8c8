// The exact copies an HNSW graph lists beside its nodes instead of inserting them (see HnswGraph): which node each
// copy belongs to and, per node, its copies in order. A bank can hold a million copies of a few sentences, so the
// copies read with a snapshot stay in sorted typed arrays (a Map of a million entries took a second to fill on the
// thread that serves requests, and 80 MB); the changes since are kept beside them.

/** A group of copies: the node holding their vector (renamed when another label takes the node's place), their
 * count, and the copies attached since loading. */
interface Group {
  node: number;
  count: number;
  added: Set<number>;
  /** Whether `added` is in ascending order (copies are mostly attached in the order facts are written), and the
   * greatest attached. */
  ascending: boolean;
  last: number;
}

export class CopyLists {
  /** Copies read at load, ascending; each one's group; and the same copies grouped (group g: offsets[g]..offsets[g+1]). */
  private readonly baseCopies: Float64Array;
  private readonly baseGroups: Uint32Array;
  private readonly grouped: Float64Array;
  private readonly offsets: Uint32Array;
  private readonly groups: Array<Group | null> = [];
  private readonly groupOfNode = new Map<number, number>();
  /** Copies whose group differs from what the base says: a group index, or -1 when no longer a copy. */
  private readonly moved = new Map<number, number>();
  private total = 0;

  /** pairs: copy and node labels, ascending by copy, no copy twice (throws otherwise). */
  constructor(pairs: Float64Array = new Float64Array(0)) {
    const n = pairs.length >> 1;
    this.baseCopies = new Float64Array(n);
    this.baseGroups = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const copy = pairs[2 * i];
      if (i > 0 && !(copy > this.baseCopies[i - 1])) throw new Error('copy pairs are not in ascending order of copy');
      this.baseCopies[i] = copy;
      const g = this.groupFor(pairs[2 * i + 1]);
      this.baseGroups[i] = g;
      this.groups[g]!.count++;
    }
    this.total = n;
    this.offsets = new Uint32Array(this.groups.length + 1);
    for (let g = 0; g < this.groups.length; g++) this.offsets[g + 1] = this.offsets[g] + this.groups[g]!.count;
    const next = this.offsets.slice(0, -1);
    this.grouped = new Float64Array(n);
    for (let i = 0; i < n; i++) this.grouped[next[this.baseGroups[i]]++] = this.baseCopies[i];
  }

  /** How many copies are listed. */
  get size(): number {
    return this.total;
  }

  /** The node a copy belongs to, or undefined when the label is no copy. */
  nodeOf(copy: number): number | undefined {
    const g = this.groupOf(copy);
    return g === undefined ? undefined : this.groups[g]!.node;
  }

  /** Whether the node has copies. */
  hasCopies(node: number): boolean {
    return this.groupOfNode.has(node);
  }

  /** The nodes that have copies. */
  nodes(): number[] {
    return [...this.groupOfNode.keys()];
  }

  /** Calls back with each copy of the node in ascending order (an exact scan ranks equal scores so), until the
   * callback returns false. */
  each(node: number, visit: (copy: number) => boolean): void {
    const g = this.groupOfNode.get(node);
    if (g === undefined) return;
    const group = this.groups[g]!;
    if (!group.ascending) {
      group.added = new Set([...group.added].sort((a, b) => a - b));
      group.ascending = true;
    }
    // The copies read at load and those attached since, both ascending, merged.
    let i = g + 1 < this.offsets.length ? this.offsets[g] : 0;
    const end = g + 1 < this.offsets.length ? this.offsets[g + 1] : 0;
    const added = group.added.values();
    let next = added.next();
    for (;;) {
      while (i < end && this.moved.has(this.grouped[i])) i++;
      const fromBase = i < end && (next.done || this.grouped[i] < next.value);
      if (fromBase) {
        if (!visit(this.grouped[i++])) return;
      } else if (!next.done) {
        if (!visit(next.value)) return;
        next = added.next();
      } else return;
    }
  }

  /** Calls back with the node and its copies in ascending order, until the callback returns false. */
  ranked(node: number, visit: (label: number) => boolean): void {
    let nodeDue = true;
    let going = true;
    this.each(node, (copy) => {
      if (nodeDue && node < copy) {
        nodeDue = false;
        going = visit(node);
        if (!going) return false;
      }
      going = visit(copy);
      return going;
    });
    if (nodeDue && going) visit(node);
  }

  /** Lists the label (no copy now) as a copy of the node. */
  attach(copy: number, node: number): void {
    const g = this.groupOfNode.get(node) ?? this.groupFor(node);
    const group = this.groups[g]!;
    if (this.baseGroupOf(copy) === g && this.moved.get(copy) === -1) {
      this.moved.delete(copy); // back where it was read
    } else {
      this.moved.set(copy, g);
      if (copy < group.last) group.ascending = false;
      group.last = Math.max(group.last, copy);
      group.added.add(copy);
    }
    group.count++;
    this.total++;
  }

  /** Takes the label off the lists (nothing when it is no copy). */
  detach(copy: number): void {
    const g = this.groupOf(copy);
    if (g === undefined) return;
    const group = this.groups[g]!;
    group.added.delete(copy);
    if (this.baseGroupOf(copy) === undefined) this.moved.delete(copy);
    else this.moved.set(copy, -1);
    group.count--;
    this.total--;
    if (group.count === 0) this.drop(g);
  }

  /** The node leaves: its first eligible copy takes its place (it is a copy no more) and the others become that one's.
   * Returns the label taking its place, undefined when it had no eligible copy (its copies stay listed). */
  handOver(node: number, eligible: (copy: number) => boolean = () => true): number | undefined {
    let next: number | undefined;
    this.each(node, (copy) => {
      if (eligible(copy)) next = copy;
      return next === undefined;
    });
    if (next === undefined) return undefined;
    const g = this.groupOfNode.get(node)!;
    this.detach(next);
    const group = this.groups[g];
    if (group) {
      this.groupOfNode.delete(node);
      this.groupOfNode.set(next, g);
      group.node = next;
    }
    return next;
  }

  /** Takes every copy of the node off the lists; returns them. */
  dropNode(node: number): number[] {
    const copies: number[] = [];
    this.each(node, (copy) => copies.push(copy) > 0);
    for (const copy of copies) this.detach(copy);
    return copies;
  }

  /** Every copy and its node, ascending by copy (what a snapshot keeps). */
  pairs(): Float64Array {
    const added = [...this.moved].filter(([, g]) => g >= 0).sort((a, b) => a[0] - b[0]);
    const out = new Float64Array(this.total * 2);
    let o = 0;
    let j = 0;
    const put = (copy: number, g: number): void => {
      out[o++] = copy;
      out[o++] = this.groups[g]!.node;
    };
    for (let i = 0; i < this.baseCopies.length; i++) {
      const copy = this.baseCopies[i];
      while (j < added.length && added[j][0] < copy) put(added[j][0], added[j++][1]);
      if (!this.moved.has(copy)) put(copy, this.baseGroups[i]);
    }
    while (j < added.length) put(added[j][0], added[j++][1]);
    return out;
  }

  private groupOf(copy: number): number | undefined {
    const moved = this.moved.get(copy);
    if (moved !== undefined) return moved >= 0 ? moved : undefined;
    return this.baseGroupOf(copy);
  }

  private baseGroupOf(copy: number): number | undefined {
    const i = sortedIndexOf(this.baseCopies, copy);
    return i < 0 ? undefined : this.baseGroups[i];
  }

  private groupFor(node: number): number {
    let g = this.groupOfNode.get(node);
    if (g === undefined) {
      g = this.groups.length;
      this.groups.push({ node, count: 0, added: new Set(), ascending: true, last: -Infinity });
      this.groupOfNode.set(node, g);
    }
    return g;
  }

  private drop(g: number): void {
    const group = this.groups[g]!;
    this.groupOfNode.delete(group.node);
    this.groups[g] = null;
  }
}

/** Where an ascending array holds the value, or -1. */
export function sortedIndexOf(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] === value) return mid;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
