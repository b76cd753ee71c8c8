import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuse } from './fusion.ts';

const list = (name: string, ids: string[], weight = 1) => ({ name, weight, hits: ids.map((id, i) => ({ id, score: 10 - i })) });

test('an id found by two arms outranks ids found high by one', () => {
  const fused = fuse([list('a', ['x', 'shared', 'y']), list('b', ['z', 'shared', 'w'])], 60);
  assert.equal(fused[0].id, 'shared');
  assert.equal(fused[0].score, 1 / 62 + 1 / 62);
  assert.deepEqual(fused[0].ranks, { a: 2, b: 2 });
  assert.deepEqual(fused[0].scores, { a: 9, b: 9 });
  assert.equal(fused.length, 5);
});

test('each list contributes weight / (k + rank)', () => {
  const fused = fuse([list('a', ['p', 'q'], 2), list('b', ['q'], 0.5)], 10);
  const byId = new Map(fused.map((f) => [f.id, f.score]));
  assert.equal(byId.get('p'), 2 / 11);
  assert.equal(byId.get('q'), 2 / 12 + 0.5 / 11);
});

test('k decides between one top rank and agreement lower down', () => {
  const lists = [list('a', ['solo', 'x', 'shared']), list('b', ['y', 'z', 'shared'])];
  // k = 0: 1/1 for solo beats 1/3 + 1/3 for shared; k = 60: 1/61 loses to 2/63.
  assert.equal(fuse(lists, 0)[0].id, 'solo');
  assert.equal(fuse(lists, 60)[0].id, 'shared');
});

test('a zero-weight list is ignored; duplicates count once; ties are deterministic', () => {
  const fused = fuse([list('a', ['m', 'n', 'm']), list('b', ['n', 'm'], 0)], 60);
  assert.deepEqual(
    fused.map((f) => f.id),
    ['m', 'n'],
  );
  assert.deepEqual(fused[0].ranks, { a: 1 });
  const tie = fuse([list('a', ['b1']), list('b', ['a1'])], 60);
  assert.deepEqual(
    tie.map((f) => f.id),
    ['a1', 'b1'],
  );
});

test('no lists, no results; a negative k is refused', () => {
  assert.deepEqual(fuse([], 60), []);
  assert.throws(() => fuse([list('a', ['x'])], -1), RangeError);
});

test('an arm giving two rankings under its name: both contribute, the id keeps the first rank and score', () => {
  const fused = fuse([list('a', ['x', 'y']), list('b', ['y']), list('a', ['z', 'w', 'y'], 0.5)], 10);
  const byId = new Map(fused.map((f) => [f.id, f]));
  assert.equal(byId.get('y')?.score, 1 / 12 + 1 / 11 + 0.5 / 13);
  assert.deepEqual(byId.get('y')?.ranks, { a: 2, b: 1 });
  assert.deepEqual(byId.get('y')?.scores, { a: 9, b: 10 });
  assert.deepEqual(byId.get('z')?.ranks, { a: 1 });
});
