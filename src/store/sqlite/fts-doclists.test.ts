// Postings decoded from an FTS5 table's pages are the ones FTS5 itself lists (its fts5vocab view), posting for posting:
// with doclists and position lists running over many pages (a tiny page size), rows deleted (tombstones) or re-indexed
// under the same rowid, several segments, incremental merges that leave segments half consumed, and a full optimize.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { random } from '../../../benchmarks/random.ts';
import { termPostings, type Postings } from './fts-doclists.ts';
import { KEYWORD_TABLE_ARGS } from './keyword-tables.ts';

const WORDS = ['owl', 'barn', 'cider', 'rain', 'hive', 'roof', 'orchard', 'spring', 'market', 'honey', 'tomás'];

function text(next: () => number, long: boolean): string {
  const length = long ? 200 + Math.floor(next() * 400) : 1 + Math.floor(next() * 12);
  return Array.from({ length }, () => WORDS[Math.floor(next() * next() * WORDS.length)]).join(' ');
}

/** What FTS5 lists for the term: one row per occurrence, grouped by row. */
function fromView(db: Database.Database, term: string): Postings {
  const docs: number[] = [];
  const tfs: number[] = [];
  for (const doc of db.prepare('SELECT doc FROM t_terms WHERE term = ?').pluck().all(term) as number[]) {
    if (docs[docs.length - 1] === doc) tfs[tfs.length - 1]++;
    else {
      docs.push(doc);
      tfs.push(1);
    }
  }
  return { docs, tfs };
}

function assertSameAsFts5(db: Database.Database, label: string): void {
  const terms = [...WORDS.map((w) => (w === 'tomás' ? 'toma' : w)), 'absent', 'a', 'zzz'];
  const decoded = db.transaction(() => termPostings(db, 't', terms))();
  assert.ok(decoded, `${label}: the table's format is one the reader knows`);
  let postings = 0;
  for (const term of terms) {
    const expected = fromView(db, term);
    postings += expected.docs.length;
    assert.deepEqual(decoded.get(term), expected, `${label}: ${term}`);
  }
  assert.ok(label.startsWith('empty') || postings > 0, `${label}: the table holds postings`);
}

test('postings decoded from the pages are those FTS5 lists, through deletes, re-indexing, merges and long doclists', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(${KEYWORD_TABLE_ARGS});
           CREATE VIRTUAL TABLE t_terms USING fts5vocab(t, instance);`);
  assertSameAsFts5(db, 'empty table');
  // A tiny page size makes doclists and position lists run over many pages; no automatic merges at first.
  db.exec(`INSERT INTO t (t, rank) VALUES ('pgsz', 64); INSERT INTO t (t, rank) VALUES ('automerge', 0);`);
  const next = random(3);
  const insert = db.prepare('INSERT INTO t (rowid, text) VALUES (?, ?)');
  const remove = db.prepare('DELETE FROM t WHERE rowid = ?');
  let rowid = 0;
  const batch = (n: number) =>
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(++rowid, text(next, next() < 0.05));
    })();
  for (let s = 0; s < 6; s++) batch(40); // six segments
  assertSameAsFts5(db, 'six segments');

  db.transaction(() => {
    for (let r = 1; r <= rowid; r += 7) remove.run(r); // tombstones in old segments
  })();
  assertSameAsFts5(db, 'after deletes');

  db.transaction(() => {
    for (let r = 3; r <= rowid; r += 11) {
      remove.run(r);
      insert.run(r, text(next, next() < 0.2)); // the same rowid, other text, in a newer segment
    }
  })();
  assertSameAsFts5(db, 'after re-indexing rows');

  db.exec(`INSERT INTO t (t, rank) VALUES ('merge', 3)`); // a little merge work: segments left half consumed
  assertSameAsFts5(db, 'during an incremental merge');
  batch(30);
  db.exec(`INSERT INTO t (t, rank) VALUES ('merge', 5)`);
  assertSameAsFts5(db, 'after more rows and merge work');

  db.exec(`INSERT INTO t (t, rank) VALUES ('automerge', 4)`);
  for (let s = 0; s < 8; s++) batch(25);
  db.transaction(() => {
    for (let r = 2; r <= rowid; r += 5) remove.run(r);
  })();
  assertSameAsFts5(db, 'with automatic merges');

  db.exec(`INSERT INTO t (t) VALUES ('optimize')`);
  assertSameAsFts5(db, 'after optimize');
  db.close();
});

test('the default page size and one large segment (as a big bank has it): the same postings', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(${KEYWORD_TABLE_ARGS});
           CREATE VIRTUAL TABLE t_terms USING fts5vocab(t, instance);`);
  const next = random(5);
  const insert = db.prepare('INSERT INTO t (rowid, text) VALUES (?, ?)');
  db.transaction(() => {
    for (let r = 1; r <= 5000; r++) insert.run(r * 3, text(next, r % 500 === 0)); // rowids with gaps
  })();
  assertSameAsFts5(db, 'one segment');
  db.close();
});

test('a table of an on-disk format version the reader does not know is left to FTS5 (no postings guessed)', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(${KEYWORD_TABLE_ARGS}); INSERT INTO t (rowid, text) VALUES (1, 'owl barn');`);
  assert.deepEqual(termPostings(db, 't', ['owl'])?.get('owl'), { docs: [1], tfs: [1] });
  // FTS5's own tables refuse writes; a copy of the table's shadow tables with a later version stands in for it.
  db.exec(`CREATE TABLE u_config AS SELECT * FROM t_config; CREATE TABLE u_data AS SELECT * FROM t_data;
           CREATE TABLE u_idx AS SELECT * FROM t_idx;`);
  assert.deepEqual(termPostings(db, 'u', ['owl'])?.get('owl'), { docs: [1], tfs: [1] });
  db.prepare(`UPDATE u_config SET v = 6 WHERE k = 'version'`).run();
  assert.equal(termPostings(db, 'u', ['owl']), null);
  db.close();
});
