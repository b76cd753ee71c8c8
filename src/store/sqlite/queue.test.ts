// The consolidation queue's reads must not grow with the backlog: a claim of the oldest waiting facts and the dead
// letters are read in rowid order from index facts_waiting, never by sorting every waiting fact of the bank (that
// took half a second per claim with a backlog of a million facts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import { CLAIMABLE, DEAD } from './queue.ts';

const plan = (db: ReturnType<typeof openDatabase>, sql: string, params: Record<string, unknown> | unknown[]): string =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>).map((r) => r.detail).join(' | ');

test('a claim reads the oldest waiting facts from the queue index, without sorting the backlog', () => {
  const db = openDatabase(':memory:');
  const detail = plan(db, CLAIMABLE, { bankId: 'b', now: new Date().toISOString(), limit: 16 });
  assert.match(detail, /USING INDEX facts_waiting \(bank_id=\? AND dead=\?\)/, detail);
  assert.doesNotMatch(detail, /TEMP B-TREE/, detail);
  db.close();
});

test('dead letters are listed and counted from the queue index', () => {
  const db = openDatabase(':memory:');
  for (const sql of [`SELECT id FROM facts WHERE ${DEAD} ORDER BY rid`, `SELECT count(*) FROM facts WHERE ${DEAD}`]) {
    const detail = plan(db, sql, ['b']);
    assert.match(detail, /facts_waiting/, detail);
    assert.doesNotMatch(detail, /TEMP B-TREE/, detail);
  }
  db.close();
});
