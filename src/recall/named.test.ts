import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fact } from '../core/types.ts';
import type { Fused } from './fusion.ts';
import { raiseNamed } from './named.ts';

const candidate = (id: string, score: number): Fused => ({ id, score, ranks: {}, scores: {} });
const fact = (id: string, entities: string[]): Fact => ({ id, entities }) as unknown as Fact;

test('a candidate mentioning a named entity rises above a slightly better one that does not', () => {
  const candidates = [candidate('other', 1), candidate('about', 0.8), candidate('far', 0.3)];
  const facts = new Map([
    ['other', fact('other', ['bob'])],
    ['about', fact('about', ['alice', 'bob'])],
    ['far', fact('far', ['alice'])],
  ]);
  const raised = raiseNamed(candidates, facts, new Set(['alice']), 1);
  assert.deepEqual(
    raised.map((c) => c.id),
    ['about', 'other', 'far'],
  );
  assert.equal(raised[0].score, 1.6);
  assert.equal(raised[2].score, 0.6);
});

test('nothing named, a zero share or unknown facts leave the order as it was', () => {
  const candidates = [candidate('a', 1), candidate('b', 0.9)];
  const facts = new Map([['b', fact('b', ['alice'])]]);
  assert.deepEqual(raiseNamed(candidates, facts, new Set(), 1), candidates);
  assert.deepEqual(raiseNamed(candidates, facts, new Set(['alice']), 0), candidates);
  assert.deepEqual(
    raiseNamed(candidates, new Map(), new Set(['alice']), 1).map((c) => c.id),
    ['a', 'b'],
  );
});
