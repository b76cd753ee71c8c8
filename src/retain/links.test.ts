import assert from 'node:assert/strict';
import { test } from 'node:test';
import { random } from '../../benchmarks/random.ts';
import { RecentFacts } from './links.ts';

const DIM = 32;

/** Unit vectors around a few directions, so some pairs are alike beyond the link threshold. */
function vectors(seed: number, n: number): Float32Array[] {
  const rnd = random(seed);
  const centres = Array.from({ length: 4 }, () => Float32Array.from({ length: DIM }, () => rnd() - 0.5));
  return Array.from({ length: n }, (_, i) => {
    const v = Float32Array.from(centres[i % 4], (x) => x + (rnd() - 0.5) * 0.15);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

test("a retain's recent facts: the k most alike above the threshold, from the product as from a scan", async () => {
  const recent = new RecentFacts('2024-01-01T00:00:00.000Z', 300);
  const kept = vectors(1, 420); // past the ring's capacity: the first 120 are overwritten
  recent.add(kept.map((vector, i) => ({ id: `f${i}`, kind: 'world' as const, vector })));
  // Exact copies tie: equal scores go in ring order, as a scan lists them; thirty copies of one sentence tie past the
  // rows first fetched, which are then fetched again, more of them.
  recent.add([{ id: 'copy', kind: 'world', vector: kept[419] }]);
  recent.add(Array.from({ length: 30 }, (_, i) => ({ id: `again${i}`, kind: 'world' as const, vector: kept[7] })));
  const queries = [...vectors(2, 40), kept[419], kept[5], kept[7]];
  for (const min of [0.9, 0.97]) {
    const near = await recent.nearest(queries, 2, min);
    queries.forEach((q, i) => {
      const scan = recent
        .alike(q, min)
        .map((x, at) => ({ ...x, at }))
        .sort((a, b) => b.score - a.score || a.at - b.at)
        .slice(0, 2)
        .map(({ id, score }) => ({ id, score }));
      assert.deepEqual(near[i], scan);
    });
    assert.ok(
      near.some((n) => n.length === 2),
      'some queries have two alike facts',
    );
  }
  // Kinds that are never linked are not kept; an empty ring finds nothing.
  const empty = new RecentFacts('2024-01-01T00:00:00.000Z');
  empty.add([{ id: 'o', kind: 'observation', vector: kept[0] }]);
  assert.deepEqual(await empty.nearest([kept[0], kept[1]], 2, 0.9), [[], []]);
});
