import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mmr } from './mmr.ts';

const v = (...xs: number[]): Float32Array => Float32Array.from(xs);

// Two near-duplicates at the top and a distinct, slightly less relevant item.
const items = [
  { id: 'dup1', relevance: 1 },
  { id: 'dup2', relevance: 0.95 },
  { id: 'other', relevance: 0.8 },
];
const vectors = new Map([
  ['dup1', v(1, 0)],
  ['dup2', v(0.99, 0.01)],
  ['other', v(0, 1)],
]);

test('lambda 1 keeps the relevance order', () => {
  assert.deepEqual(mmr(items, vectors, 1, 3), ['dup1', 'dup2', 'other']);
});

test('a lower lambda moves the distinct item above the near-duplicate', () => {
  assert.deepEqual(mmr(items, vectors, 0.5, 3), ['dup1', 'other', 'dup2']);
});

test('k limits the picks; items without vectors are similar to nothing', () => {
  assert.deepEqual(mmr(items, vectors, 0.5, 2), ['dup1', 'other']);
  const noVectors = mmr(items, new Map(), 0.3, 3);
  assert.deepEqual(noVectors, ['dup1', 'dup2', 'other']);
});

test('relevance scale and offset do not matter, lambda outside [0, 1] is refused', () => {
  const scaled = items.map((it) => ({ ...it, relevance: it.relevance * 1000 + 7 }));
  assert.deepEqual(mmr(scaled, vectors, 0.5, 3), mmr(items, vectors, 0.5, 3));
  assert.throws(() => mmr(items, vectors, 1.5, 3), RangeError);
  assert.deepEqual(mmr([], vectors, 0.5, 3), []);
});
