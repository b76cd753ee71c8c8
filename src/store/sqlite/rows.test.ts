// IN lists padded to powers of two: every length up to the limit reads the same rows through one of ten texts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import { IN_LIST_MAX, inList } from './rows.ts';

test('an IN list of any length takes one of ten texts and matches exactly the values given', () => {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE t (v INTEGER PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  for (let v = 0; v < 2 * IN_LIST_MAX; v++) insert.run(v);
  const texts = new Set<string>();
  for (let n = 1; n <= IN_LIST_MAX; n++) {
    const values = Array.from({ length: n }, (_, i) => 2 * i + 1);
    const list = inList(values);
    texts.add(list.marks);
    const rows = db
      .prepare(`SELECT v FROM t WHERE v IN (${list.marks}) ORDER BY v`)
      .pluck()
      .all(...list.values);
    assert.deepEqual(rows, values, `length ${n}`);
  }
  assert.equal(texts.size, 10);
  db.close();
});
