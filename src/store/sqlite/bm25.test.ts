// BM25 scored from the postings equals FTS5's own bm25(): the same rows, order (ties by rowid) and scores, for words
// repeated in a row, words repeated in the query, rows of many lengths, and after rows leave the table or come back
// with new text (the remembered row lengths must not outlive them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { random } from '../../../benchmarks/random.ts';
import { bm25Top } from './bm25.ts';
import { openDatabase, type Db } from './database.ts';
import { ftsTermsOf } from './fts-terms.ts';
import { keywordIndexOf, keywordRemovalsOf, keywordTable, syncKeywordIndexes } from './keyword-tables.ts';

const NOW = '2024-01-01T00:00:00.000Z';
const VOCABULARY = ['bees', 'honey', 'barn', 'market', 'spring', 'rain', 'owl', 'orchard', 'hives', 'cider', 'roof', 'Mara', 'Tomás', 'visited', 'visiting'];

function sentence(next: () => number): string {
  const length = 1 + Math.floor(next() * 14);
  return Array.from({ length }, () => VOCABULARY[Math.floor(next() * next() * VOCABULARY.length)]).join(' ');
}

function write(db: Db, change: () => void): void {
  db.transaction(() => {
    change();
    syncKeywordIndexes(db);
  })();
}

/** What FTS5 itself answers for the words ORed. */
function fts5Top(db: Db, table: string, words: string[], limit: number): Array<{ rid: number; s: number }> {
  return db
    .prepare(`SELECT rowid AS rid, bm25(${table}) AS s FROM ${table} WHERE ${table} MATCH ? ORDER BY s, rowid LIMIT ?`)
    .all(words.map((w) => `"${w}"`).join(' OR '), limit) as Array<{ rid: number; s: number }>;
}

function assertSameAsFts5(db: Db, next: () => number, label: string, source: 'fact' | 'chunk' = 'fact'): void {
  const n = keywordIndexOf(db, 'b')!;
  const table = keywordTable(n, source);
  for (let q = 0; q < 40; q++) {
    const words = Array.from({ length: 1 + Math.floor(next() * 4) }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]);
    const terms = ftsTermsOf(words).map((t) => t[0]);
    for (const limit of [1, 5, 50]) {
      const expected = fts5Top(db, table, words, limit);
      assert.deepEqual(bm25Top(db, { n, source, terms, limit }), expected, `${label} (${source}s): ${words.join(' ')} (limit ${limit})`);
    }
  }
}

test('BM25 from the postings ranks and scores exactly as FTS5 bm25(), before and after rows change', () => {
  const db = openDatabase(':memory:');
  const next = random(7);
  db.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', NOW, NOW);
  const insert = db.prepare(
    `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, created_at, updated_at) VALUES (?, 'b', 'world', ?, ?, ?, ?)`,
  );
  write(db, () => {
    for (let i = 0; i < 300; i++) insert.run(`f${i}`, sentence(next), NOW, NOW, NOW);
  });
  assertSameAsFts5(db, next, 'fresh');

  // Rows leave the table or come back with new text of another length: the same rowids, other lengths.
  write(db, () => {
    for (let i = 0; i < 300; i += 3) db.prepare('UPDATE facts SET text = ? WHERE id = ?').run(sentence(next), `f${i}`);
    db.prepare(`DELETE FROM facts WHERE id IN ('f1', 'f4', 'f7', 'f10')`).run();
  });
  assertSameAsFts5(db, next, 'after updates and deletes');

  // Rows only added: remembered lengths stay true.
  write(db, () => {
    for (let i = 300; i < 340; i++) insert.run(`f${i}`, sentence(next), NOW, NOW, NOW);
  });
  assertSameAsFts5(db, next, 'after inserts');
  db.close();
});

test('the tokenizer gives the terms FTS5 stores: lowercased, diacritics folded, stemmed; split words give several', () => {
  assert.deepEqual(ftsTermsOf(['Visiting', 'Tomás', 'e-mail', '!!']), [['visit'], ['toma'], ['e', 'mail'], []]);
});

test('chunk lengths are forgotten when chunks change, and only then (fact and chunk removals are counted apart)', () => {
  const db = openDatabase(':memory:');
  const next = random(11);
  db.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', NOW, NOW);
  db.prepare(`INSERT INTO documents (bank_id, id, content_hash, created_at, updated_at) VALUES ('b', 'd', 'h', ?, ?)`).run(NOW, NOW);
  const chunk = db.prepare(
    `INSERT INTO chunks (id, bank_id, document_id, idx, item_id, text, content_hash, speaker) VALUES (?, 'b', 'd', ?, ?, ?, ?, 'Mara')`,
  );
  const fact = db.prepare(
    `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, created_at, updated_at) VALUES (?, 'b', 'world', ?, ?, ?, ?)`,
  );
  write(db, () => {
    for (let i = 0; i < 200; i++) chunk.run(`c${i}`, i, `i${i}`, sentence(next), `h${i}`);
    for (let i = 0; i < 50; i++) fact.run(`f${i}`, sentence(next), NOW, NOW, NOW);
  });
  assertSameAsFts5(db, next, 'fresh', 'chunk');
  // Facts change: chunk lengths stay true, and are kept (the chunks' removal count stands still).
  const n = keywordIndexOf(db, 'b')!;
  const chunkRemovals = keywordRemovalsOf(db, n, 'chunk');
  write(db, () => {
    for (let i = 0; i < 50; i += 2) db.prepare('UPDATE facts SET text = ? WHERE id = ?').run(sentence(next), `f${i}`);
  });
  assert.equal(keywordRemovalsOf(db, n, 'chunk'), chunkRemovals);
  assert.ok(keywordRemovalsOf(db, n, 'fact') > 0);
  assertSameAsFts5(db, next, 'after fact updates', 'chunk');
  assertSameAsFts5(db, next, 'after fact updates', 'fact');
  // Chunks change in place (the same rowids, other lengths), some leave.
  write(db, () => {
    for (let i = 0; i < 200; i += 3) db.prepare('UPDATE chunks SET text = ? WHERE id = ?').run(sentence(next), `c${i}`);
    db.prepare(`DELETE FROM chunks WHERE id IN ('c1', 'c5', 'c8')`).run();
  });
  assertSameAsFts5(db, next, 'after chunk updates and deletes', 'chunk');
  db.close();
});
