// BM25 scored from the postings equals FTS5's own bm25(): the same rows, order (ties by rowid) and scores, for words
// repeated in a row, words repeated in the query, rows of many lengths. After rows leave the table or come back with
// new text (the remembered row lengths must not outlive them) it equals bm25() on a table built afresh from the rows
// left, to the last bit: FTS5's statistics of the bank's own table keep counting deleted rows (keyword-testing.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { random } from '../../../benchmarks/random.ts';
import { bm25Top } from './bm25.ts';
import { openDatabase, type Db } from './database.ts';
import { ftsTermsOf } from './fts-terms.ts';
import { keywordIndexOf, keywordRemovalsOf, keywordTable, syncKeywordIndexes } from './keyword-tables.ts';
import { fts5Top, rebuiltKeywordTable } from './keyword-testing.ts';
import { SqliteStore } from './store.ts';

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

/** Where the expected answers come from: FTS5 on the bank's own table (no row has left it), or on a table rebuilt from
 * the bank's current rows. */
type Reference = 'own table' | 'rebuilt';

function assertSameAsFts5(db: Db, next: () => number, label: string, source: 'fact' | 'chunk', reference: Reference): void {
  const n = keywordIndexOf(db, 'b')!;
  const table = reference === 'own table' ? keywordTable(n, source) : rebuiltKeywordTable(db, 'b', source);
  for (let q = 0; q < 40; q++) {
    const words = Array.from({ length: 1 + Math.floor(next() * 4) }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]);
    const phrases = ftsTermsOf(words);
    for (const limit of [1, 5, 50]) {
      const expected = fts5Top(db, table, words, limit);
      assert.deepEqual(bm25Top(db, { n, source, phrases, limit }), expected, `${label} (${source}s): ${words.join(' ')} (limit ${limit})`);
    }
  }
}

test('BM25 from the postings scores exactly as FTS5 bm25(), and after rows change as a table of the rows left', () => {
  const db = openDatabase(':memory:');
  const next = random(7);
  db.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', NOW, NOW);
  const insert = db.prepare(
    `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, created_at, updated_at) VALUES (?, 'b', 'world', ?, ?, ?, ?)`,
  );
  write(db, () => {
    for (let i = 0; i < 300; i++) insert.run(`f${i}`, sentence(next), NOW, NOW, NOW);
  });
  assertSameAsFts5(db, next, 'fresh', 'fact', 'own table');

  // Rows leave the table or come back with new text of another length: the same rowids, other lengths.
  write(db, () => {
    for (let i = 0; i < 300; i += 3) db.prepare('UPDATE facts SET text = ? WHERE id = ?').run(sentence(next), `f${i}`);
    db.prepare(`DELETE FROM facts WHERE id IN ('f1', 'f4', 'f7', 'f10')`).run();
  });
  assertSameAsFts5(db, next, 'after updates and deletes', 'fact', 'rebuilt');

  // Rows only added: remembered lengths stay true.
  write(db, () => {
    for (let i = 300; i < 340; i++) insert.run(`f${i}`, sentence(next), NOW, NOW, NOW);
  });
  assertSameAsFts5(db, next, 'after inserts', 'fact', 'rebuilt');
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
  assertSameAsFts5(db, next, 'fresh', 'chunk', 'own table');
  // Facts change: chunk lengths stay true, and are kept (the chunks' removal count stands still).
  const n = keywordIndexOf(db, 'b')!;
  const chunkRemovals = keywordRemovalsOf(db, n, 'chunk');
  write(db, () => {
    for (let i = 0; i < 50; i += 2) db.prepare('UPDATE facts SET text = ? WHERE id = ?').run(sentence(next), `f${i}`);
  });
  assert.equal(keywordRemovalsOf(db, n, 'chunk'), chunkRemovals);
  assert.ok(keywordRemovalsOf(db, n, 'fact') > 0);
  assertSameAsFts5(db, next, 'after fact updates', 'chunk', 'own table');
  assertSameAsFts5(db, next, 'after fact updates', 'fact', 'rebuilt');
  // Chunks change in place (the same rowids, other lengths), some leave.
  write(db, () => {
    for (let i = 0; i < 200; i += 3) db.prepare('UPDATE chunks SET text = ? WHERE id = ?').run(sentence(next), `c${i}`);
    db.prepare(`DELETE FROM chunks WHERE id IN ('c1', 'c5', 'c8')`).run();
  });
  assertSameAsFts5(db, next, 'after chunk updates and deletes', 'chunk', 'rebuilt');
  db.close();
});

test('a word the tokenizer splits is searched as a phrase, scored as bm25() scores it, after deletes too', async () => {
  // U+19B0 (a New Tai Lue vowel sign) is a letter to the query's word splitter but a separator to FTS5's tokenizer:
  // the query word "honeyᦰbees" is the phrase "honey bee", "honeyᦰhoney" the phrase "honey honey".
  const split = (a: string, b: string): string => `${a}\u19b0${b}`;
  const queries = [
    [split('honey', 'bees')],
    [split('honey', 'bees'), 'barn'],
    ['rain', split('bees', 'honey'), 'owl'],
    [split('honey', 'honey'), 'market', split('honey', 'bees')],
  ];
  const store = new SqliteStore({ file: ':memory:' });
  const db = store.db;
  const next = random(5);
  try {
    await store.createBank({ id: 'b', name: 'b', mission: '', config: {}, embedder: null, createdAt: NOW, updatedAt: NOW });
    const insert = db.prepare(
      `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, created_at, updated_at) VALUES (?, 'b', 'world', ?, ?, ?, ?)`,
    );
    write(db, () => {
      for (let i = 0; i < 150; i++) insert.run(`f${i}`, i % 10 === 0 ? 'honey bees honey bees in the barn' : sentence(next), NOW, NOW, NOW);
    });
    const idOf = new Map((db.prepare(`SELECT rid, id FROM facts`).all() as Array<{ rid: number; id: string }>).map((r) => [r.rid, r.id]));
    const assertSame = async (table: string, label: string): Promise<void> => {
      for (const words of queries) {
        const expected = fts5Top(db, table, words, 20).map((h) => ({ id: idOf.get(h.rid), score: -h.s }));
        assert.ok(expected.length > 0, `${label}: ${words.join(' ')} matches`);
        assert.deepEqual(await store.keywords.searchFacts('b', words.join(' '), 20), expected, `${label}: ${words.join(' ')}`);
      }
    };
    await assertSame(keywordTable(keywordIndexOf(db, 'b')!, 'fact'), 'fresh');
    write(db, () => {
      db.prepare(`DELETE FROM facts WHERE id IN ('f0', 'f3', 'f20', 'f21')`).run();
      for (let i = 1; i < 150; i += 4) db.prepare('UPDATE facts SET text = ? WHERE id = ?').run(sentence(next), `f${i}`);
    });
    await assertSame(rebuiltKeywordTable(db, 'b', 'fact'), 'after deletes and updates');
  } finally {
    await store.close();
  }
});
