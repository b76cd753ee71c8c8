import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Reranker } from '../embed/ports.ts';
import { rerank } from './rerank.ts';

/** Test data: a cross-encoder stand-in that scores by how many query words a document holds. */
const overlap: Reranker = {
  id: 'word-overlap',
  async score(query, documents) {
    const q = new Set(query.toLowerCase().split(/\W+/).filter(Boolean));
    return documents.map(
      (d) =>
        d
          .toLowerCase()
          .split(/\W+/)
          .filter((w) => q.has(w)).length,
    );
  },
};

const candidates = [
  { id: 'a', text: 'nothing relevant here', fused: 0.05 },
  { id: 'b', text: 'lisbon', fused: 0.04 },
  { id: 'c', text: 'alice moved to lisbon', fused: 0.03 },
  { id: 'd', text: 'alice moved to lisbon in june', fused: 0.02 },
];

test('weight 1 replaces the fused order within the top N; the rest follow in fused order', async () => {
  const out = await rerank(overlap, 'alice moved to lisbon in june', candidates, 3, 1);
  assert.deepEqual(
    out.map((r) => r.id),
    ['c', 'b', 'a', 'd'],
  );
  assert.equal(out[0].rerank, 4);
  assert.equal(out[3].rerank, undefined);
});

test('a blend keeps part of the fused order', async () => {
  const out = await rerank(overlap, 'lisbon', candidates, 4, 0.5);
  // cross-encoder: a 0, b 1, c 1, d 1; fused share favours b over c over d.
  assert.deepEqual(
    out.map((r) => r.id),
    ['b', 'c', 'd', 'a'],
  );
  assert.ok(out.every((r, i) => i === 0 || out[i - 1].score >= r.score));
});

test('weight 0 keeps the fused order; a wrong number of scores is an error', async () => {
  const out = await rerank(overlap, 'alice lisbon', candidates, 4, 0);
  assert.deepEqual(
    out.map((r) => r.id),
    ['a', 'b', 'c', 'd'],
  );
  const broken: Reranker = { id: 'broken', score: async () => [1] };
  await assert.rejects(rerank(broken, 'q', candidates, 4, 0.5), /returned 1 scores for 4/);
});
