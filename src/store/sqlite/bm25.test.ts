// BM25 scored from the postings equals FTS5's own bm25(): the same rows, order (ties by rowid) and scores, for words
// repeated in a row, words repeated in the query, rows of many lengths. After rows leave the table or come back with
// new text (the remembered row lengths must not outlive them) it equals bm25() on a table built afresh from the rows
// left, to the last bit: FTS5's statistics of the bank's own table keep counting deleted rows (keyword-testing.ts). A
// connection searching beside another that writes scores as a freshly opened one, forgetting only the rows that left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { random } from '../../../benchmarks/random.ts';
import { bm25Top, rowLengthStats, windowStats, type RowLengthStats } from './bm25.ts';
import { openDatabase, type Db } from './database.ts';
import { countKeywordTotals, keywordWindowsWritten } from './keyword-tables.ts';
import { ftsTermsOf } from './fts-terms.ts';
import { KEYWORD_REMOVED_ROWS_KEPT, keywordIndexOf, keywordRemovalsOf, keywordTable, syncKeywordIndexes } from './keyword-tables.ts';
import { fts5Top, rebuiltKeywordTable } from './keyword-testing.ts';
import { SqliteStore } from './store.ts';

const NOW = '2024-01-01T00:00:00.000Z';
const VOCABULARY = [
  'bees',
  'honey',
  'barn',
  'market',
  'spring',
  'rain',
  'owl',
  'orchard',
  'hives',
  'cider',
  'roof',
  'Mara',
  'Tomás',
  'visited',
  'visiting',
];

function sentence(next: () => number, shortest = 1): string {
  const length = shortest + Math.floor(next() * (15 - shortest));
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

/** A searching connection as a reader thread opens one (reader-worker.ts): its own, query-only. */
function searcher(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('query_only = 1');
  return db;
}

type FileBank = { file: string; writer: Db; insert: Database.Statement; next: () => number; searcher: () => Db };

/** Runs `run` on a database file holding bank b with `count` facts of random sentences (each after `prefix`), written
 * through `writer`; `searcher()` opens another connection to it; all closed and removed afterwards. */
function withBankFile(seed: number, count: number, prefix: string, run: (bank: FileBank) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bm25-file-'));
  const file = join(dir, 'cairn.db');
  const writer = openDatabase(file);
  const opened: Db[] = [];
  try {
    const next = random(seed);
    writer.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', NOW, NOW);
    const insert = writer.prepare(
      `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, created_at, updated_at) VALUES (?, 'b', 'world', ?, ?, ?, ?)`,
    );
    write(writer, () => {
      for (let i = 0; i < count; i++) insert.run(`f${i}`, `${prefix}${sentence(next)}`, NOW, NOW, NOW);
    });
    run({ file, writer, insert, next, searcher: () => opened[opened.push(searcher(file)) - 1] });
  } finally {
    for (const db of opened) db.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** How the connection's row length statistics moved while `run` ran. */
function statsDuring(db: Db, run: () => void): RowLengthStats {
  const before = rowLengthStats(db);
  run();
  const after = rowLengthStats(db);
  return { read: after.read - before.read, forgotten: after.forgotten - before.forgotten, resets: after.resets - before.resets };
}

/** Queries over the vocabulary, as phrases. */
function queriesOf(next: () => number, count: number): string[][][] {
  return Array.from({ length: count }, () =>
    ftsTermsOf(Array.from({ length: 1 + Math.floor(next() * 4) }, () => VOCABULARY[Math.floor(next() * VOCABULARY.length)])),
  );
}

/** Runs the queries on the connection and checks each answer is a freshly opened connection's (which remembers no
 * length). */
function assertAsFresh(db: Db, file: string, queries: string[][][], label: string): void {
  const fresh = searcher(file);
  try {
    const n = keywordIndexOf(fresh, 'b')!;
    for (const phrases of queries) {
      for (const limit of [3, 1000]) {
        const expected = bm25Top(fresh, { n, source: 'fact', phrases, limit });
        assert.deepEqual(bm25Top(db, { n, source: 'fact', phrases, limit }), expected, `${label}: ${phrases.join(' ')} (limit ${limit})`);
      }
    }
  } finally {
    fresh.close();
  }
}

test('writes on one connection, searches on another: only the rows that left the table are read again', () => {
  withBankFile(23, 400, '', ({ file, writer, insert, next, searcher }) => {
    const queries = queriesOf(next, 30);
    const revise = writer.prepare('UPDATE facts SET text = ? WHERE id = ?');
    const db = searcher();
    const warm = statsDuring(db, () => assertAsFresh(db, file, queries, 'fresh'));
    assert.ok(warm.read > 100, `the first searches read the matching rows' lengths (${warm.read})`);
    assert.deepEqual(
      statsDuring(db, () => assertAsFresh(db, file, queries, 'again')),
      { read: 0, forgotten: 0, resets: 0 },
    );

    // Two write transactions, as two consolidation batches: observations rewritten in place (the same rowids, other
    // lengths), some deleted, and new ones, one of them taking the rowid of the last fact deleted.
    const lastRid = (writer.prepare(`SELECT max(rid) AS r FROM facts`).get() as { r: number }).r;
    write(writer, () => {
      for (let i = 0; i < 400; i += 40) revise.run(`${sentence(next)} ${sentence(next)}`, `f${i}`);
      writer.prepare(`DELETE FROM facts WHERE id IN ('f3', 'f5', 'f399')`).run();
      insert.run('g0', 'bees honey bees honey bees', NOW, NOW, NOW);
    });
    assert.equal((writer.prepare(`SELECT rid FROM facts WHERE id = 'g0'`).get() as { rid: number }).rid, lastRid, 'the rowid was reused');
    write(writer, () => {
      for (let i = 7; i < 400; i += 50) revise.run('honey', `f${i}`);
      for (let i = 1; i <= 5; i++) insert.run(`g${i}`, sentence(next), NOW, NOW, NOW);
    });
    const removed = 10 + 3 + 8;
    const added = 6;
    const after = statsDuring(db, () => assertAsFresh(db, file, queries, 'after two batches'));
    assert.equal(after.resets, 0, 'no table forgotten whole');
    assert.equal(after.forgotten, removed, 'exactly the rows that left the table are forgotten');
    assert.ok(after.read <= removed + added, `only rows that left or came in are read again (${after.read} read)`);
    assert.ok(after.read > 0);
  });
});

test('a gap the log of removed rows no longer covers forgets the whole table, and scores stay true', () => {
  const count = KEYWORD_REMOVED_ROWS_KEPT + 50;
  withBankFile(29, count, '', ({ file, writer, next, searcher }) => {
    const queries = queriesOf(next, 12);
    const db = searcher();
    assertAsFresh(db, file, queries, 'fresh');
    // One write revising more rows than the log keeps.
    write(writer, () => {
      writer.prepare(`UPDATE facts SET text = text || ' cider' WHERE rid % ${count} < ${KEYWORD_REMOVED_ROWS_KEPT + 1}`).run();
    });
    const after = statsDuring(db, () => assertAsFresh(db, file, queries, 'after a large revision'));
    assert.equal(after.resets, 1);
    assert.equal(after.forgotten, 0);
  });
});

test('lengths read inside a transaction that is rolled back are not remembered', () => {
  withBankFile(31, 100, 'honey ', ({ file, writer: db }) => {
    const queries = [ftsTermsOf(['honey']), ftsTermsOf(['honey', 'barn'])];
    assertAsFresh(db, file, queries, 'fresh');
    const n = keywordIndexOf(db, 'b')!;
    // A write searches its own changes, then fails: what it read of them must not outlive it.
    assert.throws(
      () =>
        db.transaction(() => {
          db.prepare(`UPDATE facts SET text = 'honey honey barn barn barn barn barn barn barn barn' WHERE id = 'f1'`).run();
          syncKeywordIndexes(db);
          for (const phrases of queries) bm25Top(db, { n, source: 'fact', phrases, limit: 1000 });
          throw new Error('the write fails');
        })(),
      /the write fails/,
    );
    // Another write takes the table to the same removals count, changing another row.
    write(db, () => {
      db.prepare(`UPDATE facts SET text = 'honey' WHERE id = 'f2'`).run();
    });
    assertAsFresh(db, file, queries, 'after a rolled back write and another');
  });
});

test("rows spread over many rowid windows: windows that cannot reach the best rows are skipped, the answers stay bm25()'s", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bm25-windows-'));
  const file = join(dir, 'cairn.db');
  const writer = openDatabase(file);
  const opened: Db[] = [];
  try {
    const next = random(41);
    writer.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', NOW, NOW);
    // Rowids 37 apart: 4000 rows over about 145 windows of 1024 rowids; lengths 6 to 14 words.
    const insert = writer.prepare(
      `INSERT INTO facts (rid, id, bank_id, kind, text, mentioned_at, created_at, updated_at) VALUES (?, ?, 'b', 'world', ?, ?, ?, ?)`,
    );
    write(writer, () => {
      for (let i = 1; i <= 4000; i++) insert.run(i * 37, `f${i}`, sentence(next, 6), NOW, NOW, NOW);
    });
    const n = keywordIndexOf(writer, 'b')!;
    const queries = queriesOf(next, 20);
    /** Each query at a few limits on `db` against FTS5 on a table rebuilt from the bank's rows. */
    const check = (db: Db, label: string): void => {
      const table = rebuiltKeywordTable(writer, 'b', 'fact');
      for (const phrases of queries)
        for (const limit of [1, 7, 60])
          assert.deepEqual(
            bm25Top(db, { n, source: 'fact', phrases, limit }),
            fts5Top(writer, table, phrases.flat(), limit),
            `${label}: ${phrases.join(' ')} (limit ${limit})`,
          );
    };
    const reader = opened[opened.push(searcher(file)) - 1];
    check(reader, 'fresh');
    const before = windowStats(reader);
    for (const phrases of queries) bm25Top(reader, { n, source: 'fact', phrases, limit: 5 });
    const after = windowStats(reader);
    const [scored, skipped] = [after.scored - before.scored, after.skipped - before.skipped];
    assert.ok(skipped > scored * 2, `for 5 rows, most windows are skipped: ${scored} scored, ${skipped} skipped`);

    // Rows revised (shorter or longer, the same rowids), deleted and added while the reader keeps what it decoded: its
    // kept segments now have tombstones, and new segments come beside them.
    write(writer, () => {
      for (let i = 1; i <= 4000; i += 7) writer.prepare('UPDATE facts SET text = ? WHERE id = ?').run(sentence(next), `f${i}`);
      writer.prepare('DELETE FROM facts WHERE rid % 11 = 0').run();
      for (let i = 4001; i <= 4400; i++) insert.run(i * 37, `f${i}`, sentence(next), NOW, NOW, NOW);
    });
    check(reader, 'after revisions, deletes and inserts');
    writer.exec(`INSERT INTO ${keywordTable(n, 'fact')} (${keywordTable(n, 'fact')}) VALUES ('optimize')`);
    check(reader, 'after the segments were merged into one');

    // A database whose windows were never written (from before they were): lengths come from the document sizes, row
    // by row, until the store writes the windows on open.
    writer.exec(`UPDATE keyword_indexes SET fact_windows = NULL; DELETE FROM keyword_windows`);
    const unwritten = opened[opened.push(searcher(file)) - 1];
    check(unwritten, 'windows not written');
    assert.equal(keywordWindowsWritten(writer, n, 'fact'), false);
    countKeywordTotals(writer);
    assert.equal(keywordWindowsWritten(writer, n, 'fact'), true);
    const counted = opened[opened.push(searcher(file)) - 1];
    check(counted, 'windows written on open');
    assert.ok(windowStats(counted).skipped > 0);
  } finally {
    for (const db of opened) db.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
