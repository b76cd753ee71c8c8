// The entity graph a process keeps in memory follows consolidation without reloading the bank: after every step
// (observations created, revised with other entities, facts superseded) it answers exactly as a graph loaded afresh
// from the database, and it is the same graph object, not a reload (which takes seconds in a bank of 100k facts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openEngine, type TestEngine } from '../../../test/support/consolidation.ts';
import type { GraphIndex } from '../ports.ts';
import { SqliteGraphIndex } from './graph.ts';

const BANK = 'graph-follows';
let t: TestEngine;

before(async () => {
  t = await openEngine();
  await t.engine.createBank({ id: BANK });
});
after(async () => t.close());

/** Everything the graph answers for the bank: every fact's links, every entity's facts. */
async function answers(graph: GraphIndex): Promise<{ links: string[]; mentions: string[] }> {
  const db = t.store.db;
  const factIds = (db.prepare('SELECT id FROM facts WHERE bank_id = ?').pluck().all(BANK) as string[]).sort();
  const entityIds = (db.prepare('SELECT id FROM entities WHERE bank_id = ?').pluck().all(BANK) as string[]).sort();
  const links = (await graph.linksOf(BANK, factIds)).map((l) => `${l.from} ${l.type} ${l.weight} ${l.to}`).sort();
  const mentions = (await graph.factsOfEntities(BANK, entityIds, 1_000_000)).map((m) => `${m.entityId} ${m.factId}`).sort();
  return { links, mentions };
}

const cachedGraph = (): unknown => (t.store.graph as unknown as { banks: Map<string, { graph: unknown }> }).banks.get(BANK)?.graph;

test('the cached entity graph follows consolidation steps exactly, without reloading the bank', async () => {
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
  let observations = 0;
  let links = 0;
  for (const [n, items] of steps.entries()) {
    await t.engine.retain(BANK, { items: items.map((i) => ({ ...i, documentId: `week-${n}` })) }); // a document's facts are linked in order
    await t.engine.recall(BANK, { query: 'What does Alice grow?' }); // the graph is loaded and current
    const before = cachedGraph();
    assert.ok(before, 'recall loaded the graph');
    await t.worker.drain(BANK);
    observations = (t.store.db.prepare(`SELECT count(*) FROM facts WHERE bank_id = ? AND kind = 'observation'`).pluck().get(BANK) as number);
    const cached = await answers(t.store.graph);
    assert.equal(cachedGraph(), before, 'the same graph, updated in place');
    assert.deepEqual(cached, await answers(new SqliteGraphIndex(t.store.db)), 'as a graph loaded afresh');
    assert.ok(cached.mentions.length > 0);
    links = cached.links.length;
  }
  assert.ok(links > 0, 'facts are linked');
  assert.ok(observations > 0, 'consolidation made observations');
  const revised = t.store.db.prepare(`SELECT count(*) FROM observation_revisions WHERE bank_id = ? AND reason != 'created'`).pluck().get(BANK);
  assert.ok((revised as number) > 0, 'and revised some');
});
