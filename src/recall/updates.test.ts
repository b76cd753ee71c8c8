import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fact } from '../core/types.ts';
import { resolveRequest } from './types.ts';
import { changeIntent, changePairs, orderChanges } from './updates.ts';

/** A world fact of its own message, said `hour` hours into 2024. */
const said = (id: string, text: string, hour: number): Fact =>
  ({
    id,
    kind: 'world',
    text,
    source: { itemId: `item-${id}` },
    occurredStart: null,
    mentionedAt: new Date(Date.UTC(2024, 0, 1) + hour * 3_600_000).toISOString(),
  }) as unknown as Fact;

/** Facts stating the build time n times over, the i-th said at hour i, ranked in `order` (indexes) by falling score. */
function builds(n: number, order: number[], inView = order.length) {
  const facts = Array.from({ length: n }, (_, i) => said(`v${i}`, `The nightly build takes ${i + 1} minutes on the shared CI runner.`, i));
  const ranked = order.map((i, rank) => ({ id: facts[i].id, score: 1 - rank / order.length }));
  return {
    ranked,
    pairs: changePairs(
      order.map((i) => facts[i]),
      inView,
    ),
  };
}

const sortedAndWhole = (out: Array<{ id: string; score: number }>, ranked: Array<{ id: string }>): void => {
  assert.deepEqual([...out.map((r) => r.id)].sort(), [...ranked.map((r) => r.id)].sort(), 'nothing lost or repeated');
  for (let i = 1; i < out.length; i++) assert.ok(out[i].score <= out[i - 1].score, `sorted by score at ${i}`);
};

test('about the present, the newest of several values goes first, whatever order they ranked in', () => {
  // Five values of one thing; the newest (v4) ranks in the middle.
  const { ranked, pairs } = builds(5, [1, 3, 4, 0, 2]);
  const out = orderChanges(ranked, pairs, 'current', 10);
  sortedAndWhole(out, ranked);
  assert.equal(out[0].id, 'v4', out.map((r) => r.id).join(','));
  // Oldest first, two results in view: the newest takes the first place, the values that ranked above it follow.
  const oldestFirst = builds(6, [0, 1, 2, 3, 4, 5], 2);
  const top = orderChanges(oldestFirst.ranked, oldestFirst.pairs, 'current', 2);
  sortedAndWhole(top, oldestFirst.ranked);
  assert.deepEqual(
    top.map((r) => r.id),
    ['v5', 'v4', 'v3', 'v2', 'v1', 'v0'],
  );
});

test('about change, all the values of one thing stand together, oldest first', () => {
  const { ranked, pairs } = builds(5, [1, 3, 4, 0, 2]);
  const out = orderChanges(ranked, pairs, 'history', 10);
  sortedAndWhole(out, ranked);
  assert.deepEqual(
    out.map((r) => r.id),
    ['v0', 'v1', 'v2', 'v3', 'v4'],
  );
});

test('two values keep the placement of a pair', () => {
  const { ranked, pairs } = builds(2, [0, 1]);
  assert.deepEqual(
    orderChanges(ranked, pairs, 'current', 10).map((r) => r.id),
    ['v1', 'v0'],
  );
  assert.deepEqual(
    orderChanges(ranked, pairs, 'history', 10).map((r) => r.id),
    ['v0', 'v1'],
  );
  assert.deepEqual(
    orderChanges(ranked, pairs, 'contradiction', 10).map((r) => r.id),
    ['v0', 'v1'],
  );
  // The newer already first: about the present nothing moves.
  const newerFirst = builds(2, [1, 0]);
  assert.deepEqual(
    orderChanges(newerFirst.ranked, newerFirst.pairs, 'current', 10).map((r) => r.id),
    ['v1', 'v0'],
  );
});

test('hundreds of values of one thing are ordered in one pass: sorted, none lost or repeated', () => {
  const n = 600;
  const order = Array.from({ length: n }, (_, i) => (i * 7919) % n);
  const { ranked, pairs } = builds(n, order);
  assert.ok(pairs.length > 100_000, `every anchor pairs with every other value (${pairs.length})`);
  for (const intent of ['current', 'history', 'contradiction'] as const) {
    const out = orderChanges(ranked, pairs, intent, 500);
    sortedAndWhole(out, ranked);
    if (intent === 'current') assert.equal(out[0].id, `v${n - 1}`);
    if (intent === 'history')
      assert.deepEqual(
        out.slice(0, 3).map((r) => r.id),
        ['v0', 'v1', 'v2'],
      );
  }
});

test('whether two facts pair does not depend on which of them is in view', () => {
  const both = said('both', 'The release checklist has 12 items and 30 checks for the mobile app.', 0);
  const one = said('one', 'The release checklist has 12 items for the mobile app.', 5);
  for (const order of [
    [both, one],
    [one, both],
  ]) {
    const pairs = changePairs(order, 1);
    assert.deepEqual(
      pairs.map((p) => [p.kind, p.older, p.newer]),
      [['update', 'both', 'one']],
      order.map((f) => f.id).join(' then '),
    );
  }
});

test('asking how to change or update something is about the present; asking how it changed is about history', () => {
  for (const q of [
    'How do I change the deploy timeout?',
    'How can I update my SSH key?',
    'What should I update in the CI config?',
    'How to change the default branch?',
    'What is the latest update on the build?',
    'How does the scheduler update its queue?',
  ]) {
    assert.equal(changeIntent(q), 'current', q);
    assert.equal(resolveRequest({ query: q }).filter.includeSuperseded, undefined, `${q}: superseded facts stay out`);
  }
  for (const q of [
    'How did the deploy timeout change?',
    'How has the nightly build changed?',
    'What changed in the deploy?',
    'What changes did we make to the runner?',
    'How have my priorities evolved?',
    'What did I originally plan?',
    'What was the deadline before we changed it?',
  ])
    assert.equal(changeIntent(q), 'history', q);
});

test('a short statement pairs with one of exactly its words; identifiers holding a digit are not values', () => {
  const pairsOf = (a: string, b: string): string[][] =>
    changePairs([said('a', a, 0), said('b', b, 5)], 2).map((p) => [p.kind, p.older, p.newer]);
  assert.deepEqual(pairsOf('The quota is 7 GB.', 'The quota is 9 GB now.'), [['update', 'a', 'b']]);
  assert.deepEqual(pairsOf('The deploy is on Friday.', 'The deploy is on Monday.'), [], 'no value to compare (weekdays are words)');
  assert.deepEqual(
    pairsOf('We store the backups in S3 and the logs on EC2 hosts.', 'We store the backups in S3 and the logs on EC3 hosts.'),
    [],
  );
  assert.deepEqual(pairsOf('The API answers in 200ms at the 95th percentile.', 'The API answers in 120ms at the 95th percentile.'), [
    ['update', 'a', 'b'],
  ]);
  assert.deepEqual(pairsOf('We pinned the client to v2.3.1 for the mobile app.', 'We pinned the client to v2.4.0 for the mobile app.'), [
    ['update', 'a', 'b'],
  ]);
});
