// The embedded store's entity graph is read from its tables, so it answers as they stand after every write, by
// this connection or another (the consolidation thread's, a separate worker's): checked against the tables read
// directly, through a second store on the same file, after retains, consolidation steps and deletions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openEngine, type TestEngine } from '../../../test/support/consolidation.ts';
import type { GraphIndex } from '../ports.ts';
import { SqliteStore } from './store.ts';

const BANK = 'graph-tables';
let t: TestEngine;
let other: SqliteStore;

before(async () => {
  t = await openEngine();
  await t.engine.createBank({ id: BANK });
  other = new SqliteStore({ dataDir: t.dataDir });
});
after(async () => {
  await other.close();
  await t.close();
});

const ids = (sql: string): string[] => (t.store.db.prepare(sql).pluck().all(BANK) as string[]).sort();

/** Everything the graph answers for the bank: every fact's links, every entity's facts. */
async function answers(graph: GraphIndex): Promise<{ links: string[]; mentions: string[] }> {
  const factIds = ids('SELECT id FROM facts WHERE bank_id = ?');
  const entityIds = ids('SELECT id FROM entities WHERE bank_id = ?');
  const links = (await graph.linksOf(BANK, factIds)).map((l) => `${l.from} ${l.type} ${l.weight} ${l.to}`).sort();
  const mentions = (await graph.factsOfEntities(BANK, entityIds, 1_000_000)).map((m) => `${m.entityId} ${m.factId}`).sort();
  return { links, mentions };
}

/** The same, from the tables: each link seen from both of its ends, each mention once. */
function tables(): { links: string[]; mentions: string[] } {
  const db = t.store.db;
  const rows = db.prepare('SELECT from_id, to_id, type, weight FROM fact_links WHERE bank_id = ?').raw().all(BANK) as Array<
    [string, string, string, number]
  >;
  const links = rows.flatMap(([from, to, type, weight]) => [`${from} ${type} ${weight} ${to}`, `${to} ${type} ${weight} ${from}`]).sort();
  const mentions = (db.prepare('SELECT entity_id, fact_id FROM fact_entities WHERE bank_id = ?').raw().all(BANK) as Array<[string, string]>)
    .map(([e, f]) => `${e} ${f}`)
    .sort();
  return { links, mentions };
}

test('the graph answers as its tables stand, for this connection and another, through retains, consolidation and deletes', async () => {
  const steps = [
    [
      { content: 'Alice grows rare orchids with Ben.', timestamp: '2024-01-10T10:00:00Z' },
      { content: 'Ben restores old sailboats in Lisbon.', timestamp: '2024-01-11T10:00:00Z' },
      { content: 'Alice lives in Berlin.', timestamp: '2024-01-12T10:00:00Z' },
    ],
    [
      { content: 'Alice moved to Paris with Chloe.', timestamp: '2024-02-01T10:00:00Z' },
      { content: 'Ben no longer restores sailboats; he sold them to Dev.', timestamp: '2024-02-03T10:00:00Z' },
    ],
    [{ content: 'Alice and Chloe grow orchids in Paris now.', timestamp: '2024-03-01T10:00:00Z' }],
  ];
  for (const [n, items] of steps.entries()) {
    await t.engine.retain(BANK, { items: items.map((i) => ({ ...i, documentId: `week-${n}` })) }); // a document's facts are linked in order
    await t.worker.drain(BANK);
    const expected = tables();
    assert.ok(expected.mentions.length > 0 && expected.links.length > 0);
    assert.deepEqual(await answers(t.store.graph), expected);
    assert.deepEqual(await answers(other.graph), expected, 'another connection sees the same at once');
  }
  const observations = ids(`SELECT id FROM facts WHERE bank_id = ? AND kind = 'observation'`);
  assert.ok(observations.length > 0, 'consolidation made observations, whose mentions the graph holds');
  await t.store.deleteDocument(BANK, 'week-1', 'test');
  assert.deepEqual(await answers(other.graph), tables(), 'a deletion is seen by the other connection');
});

test('facts of an entity: oldest first, at most the limit, only of the bank asked for', async () => {
  const [alice] = await t.store.graph.entitiesByKeys(BANK, ['alice']);
  assert.ok(alice);
  const all = (await other.graph.factsOfEntities(BANK, [alice.id], 1000)).map((m) => m.factId);
  assert.ok(all.length >= 2);
  assert.deepEqual(all, [...all].sort(), 'fact ids grow with time: oldest first');
  assert.deepEqual(
    (await other.graph.factsOfEntities(BANK, [alice.id, alice.id], 1)).map((m) => m.factId),
    [all[0]],
    'an entity asked twice counts once',
  );
  assert.deepEqual(await other.graph.factsOfEntities('another-bank', [alice.id], 1000), []);
  assert.deepEqual(await other.graph.linksOf('another-bank', all), []);
});
