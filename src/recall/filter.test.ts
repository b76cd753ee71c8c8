import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fact } from '../core/types.ts';
import { matchesFilter } from './filter.ts';

const fact = (over: Partial<Fact>): Fact => ({
  id: 'f', bankId: 'b', kind: 'world', text: 't', occurredStart: null, occurredEnd: null, mentionedAt: '2024-01-01T00:00:00.000Z',
  entities: [], source: null, speaker: null, metadata: {}, tags: ['a', 'b'], status: 'active', validFrom: null, validTo: null,
  supersededBy: null, supersededAt: null, consolidatedAt: null, createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z',
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
