// Per-bank keyword indexes of the embedded store: a database of the old schema (one global FTS table pair) upgrades
// on open and ranks exactly as a fresh one; so does one from before the tables' row and token totals were kept, its
// tables counted once on open; revised texts are indexed anew; rows changed outside the store's write paths (a reused
// rowid in another bank, a raw write) still reach the right bank's index. Each write that takes rows out of a table
// logs their rowids with its removals count, in its transaction, the latest whole writes kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from './database.ts';
import { readVarint } from './fts-doclists.ts';
import {
  KEYWORD_REMOVED_ROWS_KEPT,
  KEYWORD_TABLE_ARGS,
  keywordIndexedRows,
  keywordIndexOf,
  keywordRemovalsOf,
  keywordRowsRemovedSince,
  keywordStatsOf,
  keywordTable,
  syncKeywordIndexes,
  type KeywordSource,
} from './keyword-tables.ts';
import { fts5Top, rebuiltKeywordTable } from './keyword-testing.ts';
import { databaseBefore } from './migration-testing.ts';
import { SqliteStore } from './store.ts';

const NOW = '2024-01-01T00:00:00.000Z';

/** Test data: texts sharing words, so BM25's statistics matter to the ranking. */
const TEXTS: Record<string, string[]> = {
  a: ['Mara keeps bees behind the barn', 'Mara sold honey at the market', 'the barn roof leaks in spring rain'],
  b: ['honey honey honey bees bees', 'market day in spring', 'bees swarm in spring', 'a barn owl nests in the barn'],
};

/** Writes a bank with one document, a chunk per text and a fact per chunk, in plain SQL (any schema version). */
function insertBank(db: Db, bankId: string, texts: string[]): void {
  db.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(bankId, bankId, NOW, NOW);
  insertDocument(db, bankId, texts);
}

function insertDocument(db: Db, bankId: string, texts: string[]): void {
  db.prepare('INSERT INTO documents (bank_id, id, content_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
    bankId,
    'd',
    'h',
    NOW,
    NOW,
  );
  texts.forEach((text, i) => {
    db.prepare(
      'INSERT INTO chunks (id, bank_id, document_id, idx, item_id, text, content_hash, speaker) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(`${bankId}-c${i}`, bankId, 'd', i, `i${i}`, text, `h${i}`, 'Mara');
    insertFact(db, bankId, `${bankId}-f${i}`, text, `${bankId}-c${i}`);
  });
}

function insertFact(db: Db, bankId: string, id: string, text: string, chunkId: string | null = null): void {
  db.prepare(
    `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, document_id, chunk_id, created_at, updated_at)
     VALUES (?, ?, 'world', ?, ?, ?, ?, ?, ?)`,
  ).run(id, bankId, text, NOW, chunkId ? 'd' : null, chunkId, NOW, NOW);
}

async function searches(store: SqliteStore, bankId: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of ['bees honey', 'barn spring', 'Mara market']) {
    out.push(await store.keywords.searchFacts(bankId, q, 10), await store.keywords.searchChunks(bankId, q, 10));
  }
  return out;
}

/** The row count and token total the store keeps for the bank's table. */
function totalsOf(db: Db, n: number, source: KeywordSource): { rows: number | null; tokens: number | null } {
  const stats = keywordStatsOf(db, n, source)!;
  return { rows: stats.rows, tokens: stats.tokens };
}

/** Those of a table never deleted from, from its averages record (rows, then tokens in all): true there. */
function trueTotals(db: Db, table: string): { rows: number; tokens: number } {
  const averages = (db.prepare(`SELECT block FROM ${table}_data WHERE id = 1`).get() as { block: Uint8Array }).block;
  const at = { i: 0 };
  return { rows: readVarint(averages, at), tokens: readVarint(averages, at) };
}

function tables(db: Db): string[] {
  return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name);
}

test('a database of the old schema upgrades on open: each bank searchable in its own index, the global one gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-kw-upgrade-'));
  try {
    // The schema as it was before migration 005, with two banks written under it.
    const old = databaseBefore(dir, '005');
    const oldFile = old.name;
    insertBank(old, 'a', TEXTS.a);
    insertBank(old, 'b', TEXTS.b);
    assert.ok(tables(old).includes('facts_fts'), 'the old schema has the global index');
    old.close();

    // A fresh database holding bank a alone: what bank a must answer, untouched by bank b.
    const freshFile = join(dir, 'fresh', 'cairn.db');
    const fresh = openDatabase(freshFile);
    insertBank(fresh, 'a', TEXTS.a);
    fresh.close();

    const upgraded = new SqliteStore({ file: oldFile });
    const alone = new SqliteStore({ file: freshFile });
    try {
      assert.ok(!tables(upgraded.db).includes('facts_fts') && !tables(upgraded.db).includes('chunks_fts'), 'the global index is dropped');
      assert.equal((upgraded.db.prepare('SELECT count(*) AS n FROM keyword_changes').get() as { n: number }).n, 0);
      const expected = await searches(alone, 'a');
      assert.ok(expected.every((hits) => (hits as unknown[]).length > 0));
      assert.deepEqual(await searches(upgraded, 'a'), expected, 'the same ids and scores as a database holding bank a alone');
      const honey = await upgraded.keywords.searchFacts('b', 'honey', 10);
      assert.deepEqual(
        honey.map((h) => h.id),
        ['b-f0'],
      );
      assert.deepEqual(
        (await upgraded.keywords.searchChunks('b', 'owl', 10)).map((h) => h.id),
        ['b-c3'],
      );
    } finally {
      await upgraded.close();
      await alone.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a database from before the keyword totals counts each table once on open, and scores as one built afresh', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-kw-totals-'));
  try {
    // The schema before migration 008, a bank indexed as that version did (FTS5's own statistics alone), then a fact
    // deleted, another revised and a chunk deleted: the tables' averages records count rows they no longer hold.
    const old = databaseBefore(dir, '008');
    const file = old.name;
    insertBank(old, 'a', [...TEXTS.a, ...TEXTS.b]);
    const n = (old.prepare(`INSERT INTO keyword_indexes (bank_id) VALUES ('a') RETURNING n`).get() as { n: number }).n;
    const sources: KeywordSource[] = ['fact', 'chunk'];
    for (const source of sources) {
      old.exec(`CREATE VIRTUAL TABLE ${keywordTable(n, source)} USING fts5(${KEYWORD_TABLE_ARGS})`);
      // As that version indexed them (a fact by its text alone: facts had no context yet).
      const indexed = source === 'fact' ? 'SELECT t.rid, t.text FROM facts t WHERE t.bank_id = ?' : keywordIndexedRows(source);
      old.prepare(`INSERT INTO ${keywordTable(n, source)} (rowid, text) ${indexed}`).run('a');
    }
    const ridOf = (table: string, id: string): number =>
      (old.prepare(`SELECT rid FROM ${table} WHERE id = ?`).get(id) as { rid: number }).rid;
    const [f1, f2, c3] = [ridOf('facts', 'a-f1'), ridOf('facts', 'a-f2'), ridOf('chunks', 'a-c3')];
    old.prepare(`DELETE FROM facts WHERE rid = ?`).run(f1);
    old.prepare(`DELETE FROM ${keywordTable(n, 'fact')} WHERE rowid = ?`).run(f1);
    old.prepare(`UPDATE facts SET text = 'bees bees in the spring orchard' WHERE rid = ?`).run(f2);
    old.prepare(`DELETE FROM ${keywordTable(n, 'fact')} WHERE rowid = ?`).run(f2);
    old.prepare(`INSERT INTO ${keywordTable(n, 'fact')} (rowid, text) VALUES (?, 'bees bees in the spring orchard')`).run(f2);
    old.prepare(`UPDATE facts SET chunk_id = NULL WHERE chunk_id = 'a-c3'`).run();
    old.prepare(`DELETE FROM chunks WHERE rid = ?`).run(c3);
    old.prepare(`DELETE FROM ${keywordTable(n, 'chunk')} WHERE rowid = ?`).run(c3);
    old.exec('DELETE FROM keyword_changes');
    old.close();

    const store = new SqliteStore({ file });
    try {
      for (const source of sources) {
        const rebuilt = rebuiltKeywordTable(store.db, 'a', source);
        assert.deepEqual(totalsOf(store.db, n, source), trueTotals(store.db, rebuilt), `${source} totals counted on open`);
        const idOf = new Map(
          (store.db.prepare(`SELECT rid, id FROM ${source}s`).all() as Array<{ rid: number; id: string }>).map((r) => [r.rid, r.id]),
        );
        for (const q of ['bees honey', 'barn spring', 'Mara market']) {
          const found = source === 'fact' ? await store.keywords.searchFacts('a', q, 10) : await store.keywords.searchChunks('a', q, 10);
          const hits = found.map(({ id, score }) => ({ id, score }));
          const reference = fts5Top(store.db, rebuilt, q.split(' '), 10).map((h) => ({ id: idOf.get(h.rid), score: -h.s }));
          assert.ok(reference.length > 0);
          assert.deepEqual(hits, reference, `${source}s: ${q}`);
        }
      }
      // From now on the store keeps the totals itself: a write moves them by exactly what it changed.
      await store.deleteFacts('a', ['a-f0'], 'test');
      const before = trueTotals(store.db, rebuiltKeywordTable(store.db, 'a', 'fact'));
      assert.deepEqual(totalsOf(store.db, n, 'fact'), before);
      store.db.prepare(`UPDATE facts SET text = 'honey' WHERE id = 'a-f4'`).run(); // a raw write, applied before a search
      await store.keywords.searchFacts('a', 'honey', 1);
      const after = trueTotals(store.db, rebuiltKeywordTable(store.db, 'a', 'fact'));
      assert.ok(after.tokens < before.tokens);
      assert.deepEqual(totalsOf(store.db, n, 'fact'), after);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('revised texts, reused rowids and raw writes reach the right bank index; a deleted bank leaves no table', async () => {
  const store = new SqliteStore({ file: ':memory:' });
  const db = store.db;
  try {
    for (const id of ['a', 'b'])
      await store.createBank({ id, name: id, mission: '', config: {}, embedder: null, createdAt: NOW, updatedAt: NOW });
    db.transaction(() => {
      insertDocument(db, 'a', TEXTS.a);
      syncKeywordIndexes(db);
    })();
    // An observation revised by consolidation is found by its new words, never by its old ones.
    db.prepare(`UPDATE facts SET text = 'Mara moved the hives to the orchard' WHERE id = 'a-f0'`).run();
    assert.deepEqual(
      (await store.keywords.searchFacts('a', 'orchard hives', 10)).map((h) => h.id),
      ['a-f0'],
      'a raw write is applied before the search',
    );
    assert.ok(!(await store.keywords.searchFacts('a', 'bees', 10)).some((h) => h.id === 'a-f0'));

    // The last fact of bank a goes and a fact of bank b takes its rowid, in one transaction.
    const last = db.prepare(`SELECT rid, id FROM facts WHERE bank_id = 'a' ORDER BY rid DESC LIMIT 1`).get() as { rid: number; id: string };
    db.transaction(() => {
      db.prepare('DELETE FROM facts WHERE rid = ?').run(last.rid);
      insertFact(db, 'b', 'b-new', 'spring rain on the orchard');
      syncKeywordIndexes(db);
    })();
    assert.equal((db.prepare(`SELECT rid FROM facts WHERE id = 'b-new'`).get() as { rid: number }).rid, last.rid, 'the rowid was reused');
    assert.deepEqual(
      (await store.keywords.searchFacts('b', 'orchard rain', 10)).map((h) => h.id),
      ['b-new'],
    );
    assert.deepEqual(
      (await store.keywords.searchFacts('a', 'orchard', 10)).map((h) => h.id),
      ['a-f0'],
    );
    assert.ok(!(await store.keywords.searchFacts('a', 'rain roof', 10)).some((h) => h.id === last.id));

    const n = keywordIndexOf(db, 'a');
    assert.ok(n !== null);
    const own = [keywordTable(n, 'fact'), keywordTable(n, 'chunk')];
    const left = (): string[] => tables(db).filter((t) => own.some((o) => t === o || t.startsWith(`${o}_`)));
    assert.ok(left().length >= 2);
    await store.deleteBank('a');
    assert.deepEqual(left(), [], 'no keyword table of the deleted bank, nor its shadow tables');
    assert.equal(keywordIndexOf(db, 'a'), null);
    assert.deepEqual(await store.keywords.searchFacts('a', 'orchard', 10), []);
    assert.deepEqual(
      (await store.keywords.searchFacts('b', 'orchard', 10)).map((h) => h.id),
      ['b-new'],
      'the other bank keeps its index',
    );
  } finally {
    await store.close();
  }
});

test('a write taking rows out of a keyword table logs their rowids with its count, in its transaction; the log keeps the latest', async () => {
  const store = new SqliteStore({ file: ':memory:' });
  const db = store.db;
  try {
    await store.createBank({ id: 'a', name: 'a', mission: '', config: {}, embedder: null, createdAt: NOW, updatedAt: NOW });
    db.transaction(() => {
      insertDocument(db, 'a', TEXTS.a);
      for (let i = 0; i < 100; i++) insertFact(db, 'a', `a-x${i}`, `note ${i} about the barn`);
      syncKeywordIndexes(db);
    })();
    const n = keywordIndexOf(db, 'a')!;
    const ridOf = (id: string): number => (db.prepare('SELECT rid FROM facts WHERE id = ?').get(id) as { rid: number }).rid;
    const logged = (): number => (db.prepare('SELECT count(*) AS c FROM keyword_removed_rows WHERE n = ?').get(n) as { c: number }).c;
    const write = (change: () => void): void =>
      db.transaction(() => {
        change();
        syncKeywordIndexes(db);
      })();
    assert.equal(keywordRemovalsOf(db, n, 'fact'), 0);
    assert.deepEqual(keywordRowsRemovedSince(db, n, 'fact', 0, 0), []);

    // A revised fact keeps its rowid and a deleted one leaves: both are logged under the new count, facts only.
    const [f0, f1] = [ridOf('a-f0'), ridOf('a-f1')];
    write(() => {
      db.prepare(`UPDATE facts SET text = 'Mara moved the hives' WHERE id = 'a-f0'`).run();
      db.prepare(`DELETE FROM facts WHERE id = 'a-f1'`).run();
    });
    assert.equal(keywordRemovalsOf(db, n, 'fact'), 1);
    assert.deepEqual(
      keywordRowsRemovedSince(db, n, 'fact', 0, 1)!.sort((x, y) => x - y),
      [f0, f1].sort((x, y) => x - y),
    );
    assert.equal(keywordRemovalsOf(db, n, 'chunk'), 0);
    assert.equal(logged(), 2);

    // Rows only added: nothing counted, nothing logged.
    write(() => insertFact(db, 'a', 'a-new', 'a new fact'));
    assert.equal(keywordRemovalsOf(db, n, 'fact'), 1);
    assert.equal(logged(), 2);

    // A write that fails after its index changes leaves neither the count nor the log moved.
    assert.throws(
      () =>
        db.transaction(() => {
          db.prepare(`UPDATE facts SET text = 'gone' WHERE id = 'a-f2'`).run();
          syncKeywordIndexes(db);
          assert.equal(keywordRemovalsOf(db, n, 'fact'), 2, 'counted inside the write');
          assert.equal(logged(), 3, 'logged inside the write');
          throw new Error('the write fails');
        })(),
      /the write fails/,
    );
    assert.equal(keywordRemovalsOf(db, n, 'fact'), 1);
    assert.equal(logged(), 2);
    assert.equal(keywordRowsRemovedSince(db, n, 'fact', 1, 2), null, 'no write reached count 2');

    // Many writes of 100 revised rows each: the log keeps the latest whole writes within its bound.
    const writes = Math.ceil(KEYWORD_REMOVED_ROWS_KEPT / 100) + 2;
    for (let w = 0; w < writes; w++)
      write(() => db.prepare(`UPDATE facts SET text = ? WHERE id LIKE 'a-x%'`).run(`note revised ${w} times`));
    const last = keywordRemovalsOf(db, n, 'fact');
    assert.equal(last, 1 + writes);
    const kept = Math.floor(KEYWORD_REMOVED_ROWS_KEPT / 100);
    assert.equal(logged(), kept * 100);
    assert.equal(keywordRowsRemovedSince(db, n, 'fact', last - kept, last)!.length, kept * 100);
    assert.equal(keywordRowsRemovedSince(db, n, 'fact', last - kept - 1, last), null, 'an older count than the log reaches');
    assert.equal(keywordRowsRemovedSince(db, n, 'fact', last - 1, last)!.length, 100);

    await store.deleteBank('a');
    assert.equal(logged(), 0, 'the deleted bank leaves no log');
  } finally {
    await store.close();
  }
});
