// Stateless processes: two API servers on one data directory (two store connections, as two processes would
// have) give the same answers, see each other's writes, and their two consolidation workers never
// consolidate a fact twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, tempDataDir, type TestServer } from './support/server.ts';

type Recall = { results: Array<{ id: string; text: string }> };

let a: TestServer;
let b: TestServer;

before(async () => {
  const dataDir = tempDataDir();
  a = await startServer({ dataDir });
  b = await startServer({ dataDir });
});
after(async () => {
  await b.stop();
  await a.close();
});

const turns = [
  'Priya started a pottery class on Tuesdays.',
  'Priya sold her first bowl at the market.',
  'Tom is training for the Lisbon marathon.',
  'Tom injured his knee during a long run.',
  'Priya and Tom cooked dinner for their neighbours.',
  'Tom switched to swimming while his knee heals.',
];

test('a write through one API is read the same through the other', async () => {
  await a.call('POST', '/v1/banks', { id: 'shared' });
  const r = await a.call<{ result: { facts: number } }>('POST', '/v1/banks/shared/memories', {
    items: turns.map((content, i) => ({ content, speaker: 'Narrator', timestamp: `2024-05-0${i + 1}T10:00:00Z` })),
  });
  assert.equal(r.status, 200);
  for (const query of ['What happened to Tom knee?', 'pottery', 'Who sold a bowl?']) {
    const fromA = await a.call<Recall>('POST', '/v1/banks/shared/recall', { query });
    const fromB = await b.call<Recall>('POST', '/v1/banks/shared/recall', { query });
    assert.ok(fromA.body.results.length > 0);
    assert.deepEqual(
      fromB.body.results.map((x) => x.id),
      fromA.body.results.map((x) => x.id),
      query,
    );
  }
  const bank = await b.call<{ id: string }>('GET', '/v1/banks/shared');
  assert.equal(bank.status, 200);
});

test('two workers on one store consolidate every fact exactly once', async () => {
  await Promise.all([a.worker.drain('shared'), b.worker.drain('shared')]);
  const status = await b.call<{ waiting: number }>('GET', '/v1/banks/shared/consolidation');
  assert.equal(status.status, 200);
  const db = (a.store as unknown as { db: import('better-sqlite3').Database }).db;
  const facts = db.prepare(`SELECT count(*) AS n FROM facts WHERE bank_id = 'shared' AND kind != 'observation'`).get() as { n: number };
  const done = db
    .prepare(`SELECT count(*) AS n FROM facts WHERE bank_id = 'shared' AND kind != 'observation' AND consolidated_at IS NOT NULL`)
    .get() as { n: number };
  assert.equal(done.n, facts.n);
  // Exactly once: every fact's first revision mention is unique (no fact created or supported twice).
  const twice = db
    .prepare(
      `SELECT j.value AS fact, count(*) AS n FROM observation_revisions r, json_each(r.fact_ids) j
       WHERE r.bank_id = 'shared' GROUP BY j.value HAVING n > 1`,
    )
    .all();
  assert.deepEqual(twice, []);
});
