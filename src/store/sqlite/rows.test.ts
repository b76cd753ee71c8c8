// IN lists padded to powers of two: every length reads the same rows through one of ten texts, longer lists in parts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import { inLists } from './rows.ts';

test('an IN list of any length takes one of ten texts and matches exactly the values given', () => {
  const db = openDatabase(':memory:');
  db.exec('CREATE TABLE t (v INTEGER PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  for (let v = 0; v < 2400; v++) insert.run(v);
  const texts = new Set<string>();
  for (let n = 1; n <= 1100; n++) {
    const values = Array.from({ length: n }, (_, i) => 2 * i + 1);
    const lists = [...inLists(values)];
    assert.equal(lists.length, Math.ceil(n / 512), `length ${n}: parts of at most 512`);
    const rows = lists.flatMap((list) => {
      texts.add(list.marks);
      return db
        .prepare(`SELECT v FROM t WHERE v IN (${list.marks}) ORDER BY v`)
        .pluck()
        .all(...list.values);
    });
    assert.deepEqual(rows, values, `length ${n}`);
  }
  assert.equal(texts.size, 10);
  assert.deepEqual([...inLists([])], []);
  db.close();
});
