// CopyLists against a plain model (a Map of copy -> node, and each node's copies in the order listed), through random
// attaches, detaches, hand-overs and dropped nodes, starting from pairs read as a snapshot holds them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { random } from '../../../../benchmarks/random.ts';
import { CopyLists } from './copies.ts';

/** What the lists must say: copy -> node, and the order copies were listed in (a node's copies keep their order). */
class Model {
  readonly nodeOf = new Map<number, number>();
  listed = new Map<number, number>();
  private tick = 0;

  attach(copy: number, node: number): void {
    this.nodeOf.set(copy, node);
    this.listed.set(copy, this.tick++);
  }

  copiesOf(node: number): number[] {
    return [...this.nodeOf].filter(([, n]) => n === node).map(([c]) => c);
  }
}

function agree(lists: CopyLists, model: Model, why: string): void {
  assert.equal(lists.size, model.nodeOf.size, `${why}: size`);
  const nodes = new Set(model.nodeOf.values());
  assert.deepEqual(new Set(lists.nodes()), nodes, `${why}: nodes with copies`);
  for (const node of nodes) {
    const got: number[] = [];
    lists.each(node, (c) => got.push(c) > 0);
    assert.deepEqual(new Set(got), new Set(model.copiesOf(node)), `${why}: copies of ${node}`);
    assert.equal(got.length, new Set(got).size, `${why}: no copy twice`);
    const stop: number[] = [];
    lists.each(node, (c) => stop.push(c) < 2);
    assert.deepEqual(stop, got.slice(0, 2), `${why}: stops when asked`);
  }
  for (let rid = 0; rid < 400; rid++) assert.equal(lists.nodeOf(rid), model.nodeOf.get(rid), `${why}: node of ${rid}`);
  const pairs = lists.pairs();
  const want = [...model.nodeOf].sort((a, b) => a[0] - b[0]).flat();
  assert.deepEqual([...pairs], want, `${why}: pairs ascending by copy`);
}

test('copy lists answer as a plain map does through attaches, detaches, hand-overs and dropped nodes', () => {
  for (let seed = 1; seed <= 30; seed++) {
    const rnd = random(seed);
    const pick = (n: number) => Math.floor(rnd() * n);
    // Nodes are 1000+; copies 0..399. A snapshot's pairs first.
    const model = new Model();
    for (let c = 0; c < 400; c++) if (rnd() < 0.5) model.attach(c, 1000 + pick(6));
    let lists = new CopyLists(Float64Array.from([...model.nodeOf].sort((a, b) => a[0] - b[0]).flat()));
    agree(lists, model, `seed ${seed} loaded`);
    for (let step = 0; step < 300; step++) {
      const op = pick(10);
      const copy = pick(400);
      if (op < 4 && !model.nodeOf.has(copy)) {
        // As a graph lists them: never a node's label as a copy, never a copy's label as a node.
        const node = rnd() < 0.8 ? 1000 + pick(8) : 2000 + step;
        const nodes = new Set(model.nodeOf.values());
        if (nodes.has(copy) || model.nodeOf.has(node)) continue;
        lists.attach(copy, node);
        model.attach(copy, node);
      } else if (op < 7) {
        lists.detach(copy);
        model.nodeOf.delete(copy);
      } else if (op < 9) {
        const nodes = [...new Set(model.nodeOf.values())];
        if (nodes.length === 0) continue;
        const node = nodes[pick(nodes.length)];
        const first: number[] = [];
        lists.each(node, (c) => first.push(c) < 1);
        const next = lists.handOver(node);
        assert.equal(next, first[0], 'the first copy takes the node’s place');
        model.nodeOf.delete(next!);
        for (const c of model.copiesOf(node)) model.nodeOf.set(c, next!);
      } else {
        const nodes = [...new Set(model.nodeOf.values())];
        if (nodes.length === 0) continue;
        const node = nodes[pick(nodes.length)];
        assert.deepEqual(new Set(lists.dropNode(node)), new Set(model.copiesOf(node)));
        for (const c of model.copiesOf(node)) model.nodeOf.delete(c);
      }
      if (step % 50 === 49) {
        agree(lists, model, `seed ${seed} step ${step}`);
        // As a snapshot would: written and read again.
        lists = new CopyLists(lists.pairs());
        agree(lists, model, `seed ${seed} step ${step} reread`);
      }
    }
    agree(lists, model, `seed ${seed} end`);
  }
});

test('copy pairs out of order or naming a copy twice are refused', () => {
  assert.throws(() => new CopyLists(Float64Array.from([5, 100, 3, 100])), /ascending/);
  assert.throws(() => new CopyLists(Float64Array.from([5, 100, 5, 101])), /ascending/);
  assert.equal(new CopyLists(Float64Array.from([3, 100, 5, 100])).size, 2);
});
