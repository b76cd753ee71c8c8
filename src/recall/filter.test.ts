import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fact } from '../core/types.ts';
import { matchesFilter } from './filter.ts';

const fact = (over: Partial<Fact>): Fact => ({
  id: 'f',
  bankId: 'b',
  kind: 'world',
  text: 't',
  occurredStart: null,
  occurredEnd: null,
  mentionedAt: '2024-01-01T00:00:00.000Z',
  entities: [],
  source: null,
  speaker: null,
  metadata: {},
  tags: ['a', 'b'],
  stance: null,
  context: null,
  status: 'active',
  validFrom: null,
  validTo: null,
  supersededBy: null,
  supersededAt: null,
  consolidatedAt: null,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
  ...over,
});

test('kinds and tags (every tag required)', () => {
  assert.ok(matchesFilter(fact({}), {}));
  assert.ok(matchesFilter(fact({}), { kinds: ['world', 'experience'], tags: ['a'] }));
  assert.ok(!matchesFilter(fact({}), { kinds: ['observation'] }));
  assert.ok(!matchesFilter(fact({}), { tags: ['a', 'c'] }));
});

test('superseded facts only on request, or as of a time before they were superseded', () => {
  const old = fact({ status: 'superseded', supersededAt: '2024-06-01T00:00:00.000Z' });
  assert.ok(!matchesFilter(old, {}));
  assert.ok(matchesFilter(old, { includeSuperseded: true }));
  assert.ok(matchesFilter(old, { recordedBefore: '2024-05-01T00:00:00.000Z' }));
  assert.ok(!matchesFilter(old, { recordedBefore: '2024-07-01T00:00:00.000Z' }));
  assert.ok(!matchesFilter(fact({ createdAt: '2024-08-01T00:00:00.000Z' }), { recordedBefore: '2024-07-01T00:00:00.000Z' }));
});

test('occurred time: the occurred interval overlaps [occurredFrom, occurredTo]; facts without one are left out', () => {
  const march = fact({ occurredStart: '2023-03-01T00:00:00.000Z', occurredEnd: '2023-03-31T23:59:59.999Z' });
  const instant = fact({ occurredStart: '2023-06-15T00:00:00.000Z' });
  const undated = fact({});
  const range = { occurredFrom: '2023-03-15T00:00:00.000Z', occurredTo: '2023-05-01T00:00:00.000Z' };
  assert.ok(matchesFilter(march, range), 'overlaps at its end');
  assert.ok(!matchesFilter(instant, range));
  assert.ok(!matchesFilter(undated, range));
  assert.ok(matchesFilter(march, { occurredFrom: '2023-03-31T23:59:59.999Z' }), 'bounds are inclusive');
  assert.ok(!matchesFilter(march, { occurredFrom: '2023-04-01T00:00:00.000Z' }));
  assert.ok(matchesFilter(instant, { occurredFrom: '2023-06-15T00:00:00.000Z' }), 'no end: the start is the end');
  assert.ok(!matchesFilter(instant, { occurredFrom: '2023-06-15T00:00:00.001Z' }));
  assert.ok(matchesFilter(march, { occurredTo: '2023-03-01T00:00:00.000Z' }));
  assert.ok(!matchesFilter(march, { occurredTo: '2023-02-28T23:59:59.999Z' }));
  assert.ok(!matchesFilter(undated, { occurredTo: '2030-01-01T00:00:00.000Z' }), 'either bound leaves undated facts out');
  assert.ok(matchesFilter(undated, {}), 'no bound, no effect');
});

test('valid time: validFrom <= validAt < validTo, open ends unbounded', () => {
  const t = '2023-06-01T00:00:00.000Z';
  assert.ok(matchesFilter(fact({ validFrom: '2023-01-01T00:00:00.000Z' }), { validAt: t }));
  assert.ok(matchesFilter(fact({ validFrom: t }), { validAt: t }), 'valid from the instant itself');
  assert.ok(!matchesFilter(fact({ validFrom: '2023-06-01T00:00:00.001Z' }), { validAt: t }));
  assert.ok(matchesFilter(fact({ validFrom: null }), { validAt: t }), 'no validFrom: valid from the beginning');
  assert.ok(!matchesFilter(fact({ validFrom: null, validTo: t }), { validAt: t }), 'validTo is exclusive');
  assert.ok(matchesFilter(fact({ validFrom: null, validTo: '2023-06-01T00:00:00.001Z' }), { validAt: t }));
  const old = fact({
    status: 'superseded',
    supersededAt: '2024-01-01T00:00:00.000Z',
    validFrom: '2022-01-01T00:00:00.000Z',
    validTo: '2024-01-01T00:00:00.000Z',
  });
  assert.ok(!matchesFilter(old, { validAt: t }), 'still only active facts by default');
  assert.ok(matchesFilter(old, { validAt: t, includeSuperseded: true }));
  assert.ok(!matchesFilter(old, { validAt: '2024-02-01T00:00:00.000Z', includeSuperseded: true }));
});
