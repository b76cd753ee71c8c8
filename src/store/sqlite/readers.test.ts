// Keyword search on reader threads answers exactly as on the main connection, sees every committed write at once, and
// the store closes its threads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '../../embed/ports.ts';
import { Engine } from '../../engine.ts';
import { OfflineExtractor } from '../../retain/offline-extractor.ts';
import { ftsQuery } from './keyword.ts';
import { keywordIndexOf, keywordTable } from './keyword-tables.ts';
import { SqliteReaders } from './readers.ts';
import { SqliteStore } from './store.ts';

/** Test data: a constant 4-d embedder (keyword search is what is tested). */
const embedder: Embedder = { id: 'test-const-4', dimensions: 4, embed: async (texts) => texts.map(() => Float32Array.from([1, 0, 0, 0])) };

const TOPICS = ['sourdough bread', 'an antique clock', 'a small dinghy', 'watercolour birds', 'chili peppers'];

test('keyword search on reader threads matches the main connection and sees new writes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-readers-'));
  const onMain = new SqliteStore({ dataDir: dir, offloadFacts: Infinity });
  const offloaded = new SqliteStore({ dataDir: dir, offloadFacts: 0 });
  try {
    const engine = new Engine({ store: onMain, embedder, reranker: null, extractor: new OfflineExtractor() });
    await engine.createBank({ id: 'b' });
    const items = Array.from({ length: 40 }, (_, i) => ({ content: `Ines talked about ${TOPICS[i % 5]} on day ${i}.`, speaker: 'Tariq' }));
    await engine.retain('b', { items });
    await offloaded.readersStarted();
    // Reading the FTS table first, then the facts of its best rows, ranks exactly as joining every match (ties by rowid).
    const table = keywordTable(keywordIndexOf(onMain.db, 'b')!, 'fact');
    const joined = (query: string, k: number): Array<{ id: string; score: number }> =>
      (
        onMain.db
          .prepare(`SELECT f.id AS id, bm25(${table}) AS s FROM ${table} JOIN facts f ON f.rid = ${table}.rowid
          WHERE ${table} MATCH ? AND f.bank_id = ? AND f.status = 'active' ORDER BY s, ${table}.rowid LIMIT ?`)
          .all(ftsQuery(query), 'b', k) as Array<{ id: string; s: number }>
      ).map((r) => ({ id: r.id, score: -r.s }));
    // A word the tokenizer splits (U+19B0 separates to FTS5, not to the query's word splitter) is a phrase.
    for (const query of ['dinghy', 'antique clock Tariq', 'bread peppers', 'antique\u19b0clock Ines']) {
      const main = await onMain.keywords.searchFacts('b', query, 10);
      assert.ok(main.length > 0, query);
      assert.deepEqual(main, joined(query, 10), query);
      assert.deepEqual(await onMain.keywords.searchFacts('b', query, 40), joined(query, 40), query);
      assert.deepEqual(await offloaded.keywords.searchFacts('b', query, 10), main, query);
      assert.deepEqual(await offloaded.keywords.searchChunks('b', query, 5), await onMain.keywords.searchChunks('b', query, 5), query);
      const withTexts = await offloaded.keywords.searchFacts('b', query, 10, {}, { texts: true });
      assert.deepEqual(withTexts, await onMain.keywords.searchFacts('b', query, 10, {}, { texts: true }), query);
      assert.deepEqual(
        withTexts.map((h) => h.text),
        (
          await onMain.getFacts(
            'b',
            withTexts.map((h) => h.id),
          )
        ).map((f) => f.text),
      );
    }
    await engine.retain('b', { items: [{ content: 'Ines sailed to Texel in the dinghy.', speaker: 'Tariq' }] });
    const fresh = await offloaded.keywords.searchFacts('b', 'Texel', 10);
    assert.equal(fresh.length, 1, 'a write committed on another connection is visible to the reader thread');
  } finally {
    await offloaded.close();
    await onMain.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a large read before the reader threads have started runs here and starts them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-readers-'));
  const store = new SqliteStore({ dataDir: dir, offloadFacts: 0 });
  let asked = 0;
  const passing = SqliteReaders.prototype.passing;
  SqliteReaders.prototype.passing = function (this: SqliteReaders, ...a) {
    asked++;
    return passing.apply(this, a);
  };
  try {
    const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor() });
    await engine.createBank({ id: 'b' });
    await engine.retain('b', { items: TOPICS.map((t) => ({ content: `Ines talked about ${t}.` })) });
    const first = await store.keywords.searchFacts('b', 'dinghy', 10);
    assert.equal(asked, 0, 'the first read ran here');
    await store.readersStarted();
    assert.deepEqual(await store.keywords.searchFacts('b', 'dinghy', 10), first);
    assert.equal(asked, 1, 'once started, the threads read');
  } finally {
    SqliteReaders.prototype.passing = passing;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
