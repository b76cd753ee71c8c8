// Deleting a large document or bank a batch of rows per transaction: other work runs between the batches, a retain
// into the document meanwhile is refused (the bank is gone for everyone from the start), every fact of a document
// still gets its tombstone, and a delete a crash cut short is finished when the store opens again.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { before, test } from 'node:test';
import { listen } from '../../../test/support/http.ts';
import { until } from '../../../test/support/poll.ts';
import { createApp } from '../../api/app.ts';
import { coreRoutes } from '../../api/routes/index.ts';
import { TEST_GLOVE_CACHE_FILE } from '../../../test/support/embed.ts';
import { Activity, readsFirst } from '../../core/activity.ts';
import { CairnError } from '../../core/errors.ts';
import { GloveEmbedder } from '../../embed/glove.ts';
import type { Embedder } from '../../embed/ports.ts';
import { Engine } from '../../engine.ts';
import { OfflineExtractor } from '../../retain/offline-extractor.ts';
import { SqliteStore } from './store.ts';

let embedder: Embedder;
before(async () => {
  embedder = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
});

const text = Array.from({ length: 60 }, (_, i) => `Ticket ${i}: Priya moved the billing service ${i} to the Oslo cluster.`).join('\n\n');

/** A bank holding the document 'big' (at least `minFacts` facts) and the document 'small'. */
async function withDocuments(store: SqliteStore, minFacts: number): Promise<{ engine: Engine; bigFacts: string[] }> {
  // Deletes answer when whole here, however slow the machine.
  const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor(), bankDeleteAnswerMs: 600_000 });
  await engine.createBank({ id: 'b' });
  await engine.retain('b', { items: [{ content: text, documentId: 'big', timestamp: '2024-05-01T10:00:00Z' }] });
  await engine.retain('b', { items: [{ content: 'Priya likes the Oslo office.', documentId: 'small' }] });
  const bigFacts = store.db.prepare("SELECT id FROM facts WHERE bank_id = 'b' AND document_id = 'big'").pluck().all() as string[];
  assert.ok(bigFacts.length >= minFacts, `the document gave ${bigFacts.length} facts`);
  return { engine, bigFacts };
}

const factsOf = (store: SqliteStore, documentId: string): number =>
  store.db.prepare("SELECT count(*) FROM facts WHERE bank_id = 'b' AND document_id = ?").pluck().get(documentId) as number;
const factsIn = (store: SqliteStore, bankId: string): number =>
  store.db.prepare('SELECT count(*) FROM facts WHERE bank_id = ?').pluck().get(bankId) as number;
const tombstones = (store: SqliteStore, kind: string): string[] =>
  store.db.prepare("SELECT target_id FROM tombstones WHERE bank_id = 'b' AND kind = ?").pluck().all(kind) as string[];

/** A store whose purges record `count(store)` at each pause between two of their transactions. */
function sampledStore(count: (store: SqliteStore) => number): { store: SqliteStore; left: number[] } {
  const left: number[] = [];
  const store: SqliteStore = new SqliteStore({
    file: ':memory:',
    purgeBatch: 500,
    purgePause: async () => {
      left.push(count(store));
      await nextTurn();
    },
  });
  return { store, left };
}

/** Rows of the tables cost `ms` each to delete (a trigger calling a busy function). */
function slowDeletes(store: SqliteStore, ms: number, tables: string[]): void {
  store.db.function('slow_row', () => {
    const until = performance.now() + ms;
    while (performance.now() < until);
    return null;
  });
  for (const table of tables)
    store.db.exec(`CREATE TEMP TRIGGER slow_${table}_delete AFTER DELETE ON ${table} BEGIN SELECT slow_row(); END`);
}

test("a large document's delete steps aside while a recall of this process runs, and finishes after it", async () => {
  const activity = new Activity();
  // Bound far beyond the test: nothing but the end of the read lets the steps go on.
  const store = new SqliteStore({ file: ':memory:', purgeBatch: 10, purgePause: readsFirst(activity, { maxMs: 60_000 }) });
  try {
    const { engine, bigFacts } = await withDocuments(store, 40);
    // A recall held open: counted as a read, as the engine counts its recalls.
    let release!: () => void;
    const read = activity.during(() => new Promise<void>((r) => (release = r)), { read: true });
    let done = false;
    const deleting = engine.memories.deleteDocument('b', 'big', 'user request').then((r) => {
      done = true;
      return r;
    });
    // Its first step runs at once; then it waits, turn after turn, while the read runs.
    await until('the first step', () => factsOf(store, 'big') < bigFacts.length);
    const left = factsOf(store, 'big');
    for (let i = 0; i < 100; i++) await nextTurn();
    assert.equal(factsOf(store, 'big'), left, 'no step ran while the read did');
    assert.equal(done, false);
    release();
    await read;
    assert.deepEqual((await deleting).factIds.sort(), [...bigFacts].sort());
    assert.equal(factsOf(store, 'big'), 0);
  } finally {
    store.close();
  }
});

test('a large document is deleted a batch at a time, other work running between the batches', async () => {
  const store = new SqliteStore({ file: ':memory:', purgeBatch: 10 });
  try {
    const { engine, bigFacts } = await withDocuments(store, 40);
    // Sampled on every turn of the event loop while the delete runs: facts of the document left, and whether a retain
    // into it is refused.
    const seen: number[] = [];
    let refused: unknown = null;
    let sampling = true;
    const sample = (): void => {
      if (!sampling) return;
      seen.push(factsOf(store, 'big'));
      setImmediate(sample);
    };
    setImmediate(sample);
    let sameRefused: unknown = null;
    let second: { factIds: string[] } | null = null;
    const racing = new Promise<void>((settle) =>
      setImmediate(() =>
        Promise.all([
          engine.retain('b', { items: [{ content: 'Priya moved one more service.', documentId: 'big' }] }).then(
            () => undefined,
            (e: unknown) => void (refused = e),
          ),
          // The same content again is no "unchanged" document: the document is being deleted.
          engine.retain('b', { items: [{ content: text, documentId: 'big', timestamp: '2024-05-01T10:00:00Z' }] }).then(
            () => undefined,
            (e: unknown) => void (sameRefused = e),
          ),
          // A second delete of it waits for the first and answers every fact too.
          engine.memories.deleteDocument('b', 'big', 'user request').then((r) => void (second = r)),
        ]).finally(settle),
      ),
    );
    const deleted = await engine.memories.deleteDocument('b', 'big', 'user request');
    sampling = false;
    await racing;
    assert.ok(
      sameRefused instanceof CairnError && sameRefused.code === 'conflict',
      `the same content retained meanwhile is refused: ${String(sameRefused)}`,
    );
    assert.deepEqual([...((second as { factIds: string[] } | null)?.factIds ?? [])].sort(), [...bigFacts].sort());

    assert.deepEqual([...deleted.factIds].sort(), [...bigFacts].sort(), 'every fact of the document, each once');
    const between = seen.filter((n) => n > 0 && n < bigFacts.length);
    assert.ok(between.length >= 2, `other work ran between the batches (facts left when sampled: ${seen.join(', ')})`);
    assert.ok(
      refused instanceof CairnError && refused.code === 'conflict' && /being deleted/.test(refused.message),
      `a retain into the document while it is deleted is refused: ${String(refused)}`,
    );
    assert.equal(factsOf(store, 'big'), 0);
    assert.equal(await store.getDocument('b', 'big'), null);
    assert.deepEqual(await store.listChunks('b', 'big'), []);
    assert.deepEqual(tombstones(store, 'fact').sort(), [...bigFacts].sort(), 'a tombstone per fact');
    assert.deepEqual(tombstones(store, 'document'), ['big']);
    assert.equal(factsOf(store, 'small'), 1, 'the other document is untouched');
    assert.equal(store.db.prepare('SELECT count(*) FROM document_purges').pluck().get(), 0);
    // Nothing of it is found any more, and it can be retained again.
    const hits = await engine.recall('b', { query: 'billing service Oslo cluster' });
    assert.ok(hits.results.every((r) => r.source?.documentId !== 'big'));
    await engine.retain('b', { items: [{ content: text, documentId: 'big', timestamp: '2024-05-01T10:00:00Z' }] });
    assert.equal(factsOf(store, 'big'), bigFacts.length);
  } finally {
    await store.close();
  }
});

test("a delete's transaction ends after about 50 ms however few rows it has removed", async () => {
  // Facts that take 5 ms each to delete (a trigger calling a busy function): what facts with hundreds of links off a
  // cold cache cost. The batch allows 500 a transaction; the clock must end each one far sooner.
  const { store, left } = sampledStore((s) => factsOf(s, 'big'));
  try {
    const { engine, bigFacts } = await withDocuments(store, 40);
    slowDeletes(store, 5, ['facts']);
    const deleted = await engine.memories.deleteDocument('b', 'big', 'user request');
    assert.equal(deleted.factIds.length, bigFacts.length);
    const steps = [bigFacts.length, ...left].map((n, i, all) => (i === 0 ? 0 : all[i - 1] - n)).slice(1);
    assert.ok(steps.length >= 3, `several transactions: facts left at each pause ${left.join(', ')}`);
    assert.ok(Math.max(...steps) <= 32, `each removed a few facts (10-16 at 5 ms each), not the batch: ${steps.join(', ')}`);
  } finally {
    await store.close();
  }
});

test('a document delete a crash cut short is finished when the store opens again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-purge-'));
  try {
    let bigFacts: string[] = [];
    const first = new SqliteStore({ dataDir: dir, purgeBatch: 10 });
    try {
      ({ bigFacts } = await withDocuments(first, 40));
      // Where a crash leaves a delete after its first transactions: the purge recorded, some facts gone with their
      // tombstones, the document and the rest still there.
      first.db
        .prepare("INSERT INTO document_purges (bank_id, document_id, reason, started_at) VALUES ('b', 'big', 'user request', ?)")
        .run(new Date().toISOString());
      first.db.prepare("DELETE FROM facts WHERE bank_id = 'b' AND id IN (SELECT id FROM facts WHERE document_id = 'big' LIMIT 10)").run();
    } finally {
      await first.close();
    }
    const again = new SqliteStore({ dataDir: dir, purgeBatch: 10 });
    try {
      assert.equal(await again.purgesResumed, 1);
      assert.equal(factsOf(again, 'big'), 0, 'the rest of the facts are deleted');
      assert.equal(await again.getDocument('b', 'big'), null);
      assert.deepEqual(tombstones(again, 'document'), ['big']);
      assert.equal(tombstones(again, 'fact').length, bigFacts.length - 10, 'the facts deleted on reopening have their tombstones');
      assert.equal(again.db.prepare('SELECT count(*) FROM document_purges').pluck().get(), 0);
      assert.equal(factsOf(again, 'small'), 1);
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Rows the bank still has in the tables that hold a bank's data (a bank's tombstone aside). */
function rowsOf(store: SqliteStore, bankId: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const table of [
    'banks',
    'facts',
    'chunks',
    'documents',
    'entities',
    'entity_keys',
    'fact_entities',
    'fact_links',
    'evidence',
    'vector_changes',
    'keyword_changes',
    'observation_revisions',
    'tombstones',
  ]) {
    const column = table === 'banks' ? 'id' : 'bank_id';
    const also = table === 'tombstones' ? " AND kind != 'bank'" : '';
    out[table] = store.db.prepare(`SELECT count(*) FROM ${table} WHERE ${column} = ?${also}`).pluck().get(bankId) as number;
  }
  return out;
}

test("a bank's purge cuts a fact's many links over several transactions instead of cascading them in one", async () => {
  // A hub: a sentence every other fact links to (near-copies at 1M facts: 12k links into one fact), each link 1 ms to
  // delete (a trigger calling a busy function). Deleting the fact cascaded to all of them in one statement, which a
  // transaction's clock cannot cut.
  const linksIn = (s: SqliteStore): number =>
    s.db.prepare("SELECT count(*) FROM fact_links l JOIN facts f ON f.id = l.to_id WHERE f.bank_id = 'b'").pluck().get() as number;
  const { store, left: links } = sampledStore(linksIn);
  const linksOfBank = (): number => linksIn(store);
  try {
    const { engine, bigFacts } = await withDocuments(store, 40);
    const [hub, ...others] = bigFacts;
    const link = store.db.prepare("INSERT OR IGNORE INTO fact_links (bank_id, from_id, to_id, type, weight) VALUES ('b', ?, ?, ?, 0.5)");
    for (const from of others) for (const type of ['temporal', 'semantic', 'causal', 'entity']) link.run(from, hub, type);
    const before = linksOfBank();
    assert.ok(before >= others.length * 4, `the hub has ${before} links into it`);
    slowDeletes(store, 1, ['fact_links']);
    await engine.deleteBank('b');
    assert.equal(linksOfBank(), 0);
    const drops = [before, ...links].map((n, i, all) => (i === 0 ? 0 : all[i - 1] - n)).slice(1);
    assert.ok(Math.max(...drops) <= 100, `each transaction removed a bounded number of links (about 64 at 1 ms each): ${drops.join(', ')}`);
  } finally {
    await store.close();
  }
});

test("a delete's step counts what its transaction spends after its removals against the next one's time", async () => {
  // Each fact 1 ms to remove, and 1 ms more for its keyword change, which a bank's step drops after its removals (as a
  // commit writes what they dirtied): with 50 ms of removals a step, transactions held the loop about 100 ms.
  const { store, left } = sampledStore((s) => factsIn(s, 'b'));
  try {
    const { engine } = await withDocuments(store, 40);
    for (const word of ['Issue', 'Case', 'Request', 'Incident'])
      await engine.retain('b', { items: [{ content: text.replaceAll('Ticket', word), documentId: word }] });
    const before = factsIn(store, 'b');
    slowDeletes(store, 1, ['facts', 'keyword_changes']);
    await engine.deleteBank('b');
    const steps = [before, ...left]
      .map((n, i, all) => (i === 0 ? 0 : all[i - 1] - n))
      .slice(1, -1)
      .filter((n) => n > 0);
    assert.ok(steps.length >= 3, `several transactions: facts left at each pause ${left.join(', ')}`);
    const later = steps.slice(1).sort((a, b) => a - b);
    const median = later[Math.floor(later.length / 2)];
    assert.ok(median <= 36, `after the first, steps removed about 25 facts (50 ms with their changes), not 50: ${steps.join(', ')}`);
  } finally {
    await store.close();
  }
});

test('a large bank is deleted a batch at a time, gone for readers and writers from the start', async () => {
  const store = new SqliteStore({ file: ':memory:', purgeBatch: 10 });
  try {
    const { engine, bigFacts } = await withDocuments(store, 40);
    await engine.createBank({ id: 'keep' });
    await engine.retain('keep', { items: [{ content: 'Priya keeps the Oslo billing runbook.' }] });
    const kept = rowsOf(store, 'keep');
    await engine.memories.deleteDocument('b', 'small', 'tidy'); // a document tombstone, which goes with the bank

    const seen: number[] = [];
    let sampling = true;
    const sample = (): void => {
      if (!sampling) return;
      seen.push(rowsOf(store, 'b').facts);
      setImmediate(sample);
    };
    setImmediate(sample);
    const meanwhile = new Promise<unknown[]>((settle) =>
      setImmediate(() =>
        settle(
          Promise.all([
            store.getBank('b'),
            store.listBanks().then((banks) => banks.map((b) => b.id)),
            engine.retain('b', { items: [{ content: 'Priya moved one more service.' }] }).catch((e: unknown) => e),
            engine.createBank({ id: 'b' }).catch((e: unknown) => e),
            engine.deleteBank('b').catch((e: unknown) => e),
          ]),
        ),
      ),
    );
    await engine.deleteBank('b', 'closing the account');
    sampling = false;
    const [bank, listed, retained, created, deletedTwice] = await meanwhile;

    const between = seen.filter((n) => n > 0 && n < bigFacts.length + 1);
    assert.ok(between.length >= 2, `other work ran between the batches (facts left when sampled: ${seen.join(', ')})`);
    assert.equal(bank, null, 'the bank is gone for readers once its delete has begun');
    assert.deepEqual(listed, ['keep']);
    const code = (e: unknown): string => (e instanceof CairnError ? `${e.code}: ${e.message}` : String(e));
    assert.match(code(retained), /^not_found/, 'a retain into it meanwhile finds no bank');
    assert.match(code(created), /^conflict: bank 'b' is being deleted/);
    assert.match(code(deletedTwice), /^not_found/);

    assert.deepEqual(
      Object.entries(rowsOf(store, 'b')).filter(([, n]) => n > 0),
      [],
      'nothing of the bank is left',
    );
    assert.equal((await store.tombstoneOf('b', 'b', ['bank']))?.reason, 'closing the account');
    assert.equal(store.db.prepare('SELECT count(*) FROM bank_purges').pluck().get(), 0);
    assert.deepEqual(rowsOf(store, 'keep'), kept, 'the other bank is untouched');
    assert.equal((await engine.recall('keep', { query: 'Oslo billing runbook' })).results.length, 1);
    // The id can be used again, keyword index and all.
    await engine.createBank({ id: 'b' });
    await engine.retain('b', { items: [{ content: 'Priya moved the billing service to Oslo.' }] });
    assert.equal((await engine.recall('b', { query: 'billing service Oslo' })).results.length, 1);
  } finally {
    await store.close();
  }
});

test("a large bank's DELETE answers 202 once the bank is gone for everyone, its rows removed after", async () => {
  // The steps wait at a gate the test opens.
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let pauses = 0;
  const store = new SqliteStore({
    file: ':memory:',
    purgeBatch: 10,
    purgePause: async () => {
      pauses++;
      await gate;
    },
  });
  const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor(), bankDeleteAnswerMs: 0 });
  const http = await listen(createApp(engine, { routes: coreRoutes(engine) }));
  try {
    await engine.createBank({ id: 'b' });
    await engine.retain('b', { items: [{ content: text, documentId: 'big' }] });
    await engine.createBank({ id: 'small' });
    await engine.retain('small', { items: [{ content: 'Priya keeps the Oslo runbook.' }] });
    const answer = await http.call('DELETE', '/v1/banks/b');
    assert.deepEqual(answer, { status: 202, body: { deleted: 'b', complete: false } });
    assert.ok(pauses > 0 && factsIn(store, 'b') > 0, 'its rows were still being removed when it answered');
    assert.equal((await http.call('GET', '/v1/banks/b')).status, 404);
    assert.equal((await http.call('POST', '/v1/banks', { id: 'b' })).status, 409);
    open();
    await until(
      'the rows to be removed',
      () => factsIn(store, 'b') === 0 && store.db.prepare('SELECT count(*) FROM bank_purges').pluck().get() === 0,
    );
    assert.equal((await http.call('POST', '/v1/banks', { id: 'b' })).status, 201);
    // A small bank's delete is whole when it answers: 200.
    assert.deepEqual(await http.call('DELETE', '/v1/banks/small'), { status: 200, body: { deleted: 'small', complete: true } });
  } finally {
    open();
    await http.close();
    await store.close();
  }
});

test('of two deletes of one bank sent at once, one deletes it and the other finds no bank', async () => {
  const store = new SqliteStore({ file: ':memory:', purgeBatch: 10 });
  try {
    const { engine } = await withDocuments(store, 40);
    const [first, second] = await Promise.allSettled([engine.deleteBank('b'), engine.deleteBank('b')]);
    const outcomes = [first, second].map((r) =>
      r.status === 'fulfilled' ? `deleted ${r.value.complete}` : r.reason instanceof CairnError ? r.reason.code : String(r.reason),
    );
    assert.deepEqual(outcomes.sort(), ['deleted true', 'not_found'], 'the one that did not delete it does not say it did');
    assert.equal(factsIn(store, 'b'), 0);
  } finally {
    await store.close();
  }
});

test('a bank delete a crash cut short is finished when the store opens again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-purge-'));
  try {
    const first = new SqliteStore({ dataDir: dir, purgeBatch: 10 });
    try {
      const { engine } = await withDocuments(first, 40);
      await engine.createBank({ id: 'keep' });
      await engine.retain('keep', { items: [{ content: 'Priya keeps the Oslo billing runbook.' }] });
      // Where a crash leaves a bank's delete after its first transactions: the purge recorded, some facts gone.
      first.db.prepare("INSERT INTO bank_purges (bank_id, reason, started_at) VALUES ('b', 'closing', ?)").run(new Date().toISOString());
      first.db.prepare("DELETE FROM facts WHERE rid IN (SELECT rid FROM facts WHERE bank_id = 'b' LIMIT 10)").run();
      assert.equal(await first.getBank('b'), null, 'hidden from the moment its delete began');
    } finally {
      await first.close();
    }
    const again = new SqliteStore({ dataDir: dir, purgeBatch: 10 });
    try {
      assert.equal(await again.purgesResumed, 1);
      assert.deepEqual(
        Object.entries(rowsOf(again, 'b')).filter(([, n]) => n > 0),
        [],
      );
      assert.equal(again.db.prepare('SELECT count(*) FROM bank_purges').pluck().get(), 0);
      assert.ok(rowsOf(again, 'keep').facts > 0);
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bank deleted as its store opens is purged once, not a second time by the resumption', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-purge-'));
  try {
    const first = new SqliteStore({ dataDir: dir, purgeBatch: 10 });
    try {
      await withDocuments(first, 40);
    } finally {
      await first.close();
    }
    const again = new SqliteStore({ dataDir: dir, purgeBatch: 10 });
    try {
      // Begun before the store looks for purges to resume, which then finds this one recorded.
      await again.deleteBank('b', 'closing');
      assert.equal(await again.purgesResumed, 0, 'the resumption left it to the delete running it');
      assert.deepEqual(
        Object.entries(rowsOf(again, 'b')).filter(([, n]) => n > 0),
        [],
      );
      assert.equal((await again.tombstoneOf('b', 'b', ['bank']))?.reason, 'closing');
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a purge another connection finished is left alone: the document retained again since stays', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-purge-'));
  try {
    const first = new SqliteStore({ dataDir: dir, purgeBatch: 1 });
    let engine: Engine;
    try {
      ({ engine } = await withDocuments(first, 40));
      // A crash left two purges recorded: 'big' (many steps), then 'small'.
      const record = first.db.prepare("INSERT INTO document_purges (bank_id, document_id, reason, started_at) VALUES ('b', ?, 'crash', ?)");
      record.run('big', '2024-01-01T00:00:00.000Z');
      record.run('small', '2024-01-01T00:00:01.000Z');
      // A second connection resumes both, one after the other; meanwhile this one deletes 'small' and retains it anew.
      const second = new SqliteStore({ dataDir: dir, purgeBatch: 1 });
      try {
        await engine.memories.deleteDocument('b', 'small', 'user request');
        await engine.retain('b', { items: [{ content: 'Priya runs the Bergen office now.', documentId: 'small' }] });
        assert.ok(factsOf(first, 'big') > 0, 'the other connection was still deleting the first document');
        assert.equal(await second.purgesResumed, 1, "'small' was no longer recorded when its turn came");
      } finally {
        await second.close();
      }
      assert.equal(factsOf(first, 'big'), 0);
      assert.equal(factsOf(first, 'small'), 1, 'the document retained after its delete stays');
      assert.equal((await first.getDocument('b', 'small'))?.id, 'small');
    } finally {
      await first.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
