// TopK keeps the m best scores, and of equal scores the earliest positions, whatever order they are pushed in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TopK } from './top-k.ts';

test('equal scores keep the earliest positions, pushed in any order', () => {
  for (const order of [
    [1, 2, 3, 4, 5, 6],
    [6, 5, 4, 3, 2, 1],
    [4, 1, 6, 2, 5, 3],
  ]) {
    const top = new TopK(3);
    for (const p of order) top.push(0.5, p);
    top.push(0.25, 0);
    assert.deepEqual(top.sorted().positions, [1, 2, 3], `pushed ${order}`);
  }
});

test('better scores win over earlier positions', () => {
  const top = new TopK(2, 'double');
  for (const [score, p] of [
    [0.1, 1],
    [0.3, 9],
    [0.2, 5],
    [0.3, 7],
  ])
    top.push(score, p);
  assert.deepEqual(top.sorted(), { positions: [7, 9], scores: [0.3, 0.3] });
});
