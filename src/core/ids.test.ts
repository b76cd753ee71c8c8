// newId: unique, time-sortable, of a fixed shape, also across refills of its random pool.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from './ids.ts';

test('ids are unique, sort by creation and keep their shape across many pool refills', () => {
  const ids = Array.from({ length: 5000 }, () => newId('fct'));
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, /^fct_[0-9a-f]{15}[0-9a-f]{12}$/);
  // the random tails differ (not a pool handed out twice)
  assert.equal(new Set(ids.map((id) => id.slice(-12))).size, ids.length);
});
