// Migration 016 on a database stored before banks' counts were kept: the counts start from what is stored (active
// facts, vectors, per bank) and are kept from then on.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openDatabase } from './database.ts';
import { activeFactCount, vectorCount } from './counts.ts';
import { databaseBefore } from './migration-testing.ts';
import { encodeVector } from './vectors/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-counts-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('an upgraded database: each bank counts its active facts and its vectors, and keeps counting', () => {
  const old = databaseBefore(dir, '016');
  const now = '2024-01-01T00:00:00.000Z';
  for (const bank of ['a', 'b', 'empty'])
    old.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(bank, bank, now, now);
  const addFact = (bank: string, id: string, status: string, withVector: boolean): void => {
    const { lastInsertRowid } = old
      .prepare(`INSERT INTO facts (id, bank_id, kind, text, mentioned_at, status, created_at, updated_at)
      VALUES (?, ?, 'world', ?, ?, ?, ?, ?)`)
      .run(id, bank, `fact ${id}`, now, status, now, now);
    if (withVector)
      old
        .prepare('INSERT INTO fact_vectors (fact_rid, bank_id, vector) VALUES (?, ?, ?)')
        .run(lastInsertRowid, bank, encodeVector(new Float32Array([1, 0])));
  };
  for (let i = 0; i < 5; i++) addFact('a', `a${i}`, i < 2 ? 'superseded' : 'active', i !== 4);
  addFact('b', 'b0', 'active', true);
  const file = old.name;
  old.close();

  const db = openDatabase(file);
  try {
    assert.deepEqual(
      ['a', 'b', 'empty', 'unknown'].map((bank) => [activeFactCount(db, bank), vectorCount(db, bank)]),
      [
        [3, 4],
        [1, 1],
        [0, 0],
        [0, 0],
      ],
    );
    db.prepare("UPDATE facts SET status = 'active' WHERE id = 'a0'").run();
    db.prepare("DELETE FROM facts WHERE id = 'a2'").run(); // its vector goes with it
    assert.deepEqual([activeFactCount(db, 'a'), vectorCount(db, 'a')], [3, 3]);
    db.prepare("DELETE FROM banks WHERE id = 'a'").run();
    assert.deepEqual([activeFactCount(db, 'a'), vectorCount(db, 'a')], [0, 0]);
    assert.equal(db.prepare("SELECT count(*) FROM bank_counts WHERE bank_id = 'a'").pluck().get(), 0, 'a deleted bank leaves no row');
  } finally {
    db.close();
  }
});
