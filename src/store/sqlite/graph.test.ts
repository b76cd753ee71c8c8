// The entity graph a process keeps in memory follows consolidation without reloading the bank: after every step
// (observations created, revised with other entities, facts superseded) it answers exactly as a graph loaded afresh
// from the database, and it is the same graph object, not a reload (which takes seconds in a bank of 100k facts).
// The same holds for a second store on the same database file (another process, or a worker thread with its own
// connection): it follows the first one's writes through the graph change log, and reloads only when the log
// cannot say what changed (deletions, replaced chunks, a gap, a bank deleted and created again).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gloveCacheFile, openEngine, type TestEngine } from '../../../test/support/consolidation.ts';
import { GloveEmbedder } from '../../embed/glove.ts';
import { Engine } from '../../engine.ts';
import { OfflineExtractor } from '../../retain/offline-extractor.ts';
import type { GraphIndex } from '../ports.ts';
import { SqliteGraphIndex } from './graph.ts';
import { SqliteStore } from './store.ts';
import { bumpGraphVersion } from './writes.ts';

const BANK = 'graph-follows';
let t: TestEngine;

before(async () => {
  t = await openEngine();
  await t.engine.createBank({ id: BANK });
});
after(async () => t.close());

/** Everything the graph answers for the bank: every fact's links, every entity's facts (ids ever seen in the bank, so
 * a graph still holding a deleted fact or entity shows it). */
async function answers(graph: GraphIndex, bank = BANK): Promise<{ links: string[]; mentions: string[] }> {
  const db = t.store.db;
  const factIds = [...new Set([...(db.prepare('SELECT id FROM facts WHERE bank_id = ?').pluck().all(bank) as string[]), ...(seen.get(`f ${bank}`) ?? [])])].sort();
  const entityIds = [...new Set([...(db.prepare('SELECT id FROM entities WHERE bank_id = ?').pluck().all(bank) as string[]), ...(seen.get(`e ${bank}`) ?? [])])].sort();
  seen.set(`f ${bank}`, factIds);
  seen.set(`e ${bank}`, entityIds);
  const links = (await graph.linksOf(bank, factIds)).map((l) => `${l.from} ${l.type} ${l.weight} ${l.to}`).sort();
  const mentions = (await graph.factsOfEntities(bank, entityIds, 1_000_000)).map((m) => `${m.entityId} ${m.factId}`).sort();
  return { links, mentions };
}
const seen = new Map<string, string[]>();

const cachedGraphOf = (graph: SqliteGraphIndex, bank: string): unknown =>
  (graph as unknown as { banks: Map<string, { graph: unknown }> }).banks.get(bank)?.graph;
const cachedGraph = (): unknown => cachedGraphOf(t.store.graph, BANK);

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

/** A second and a third store on the engine's database file: B keeps its graph across the engine's writes, C is only
 * used for graphs loaded afresh. */
async function withOtherStores(run: (b: SqliteStore, fresh: () => SqliteGraphIndex) => Promise<void>): Promise<void> {
  const b = new SqliteStore({ dataDir: t.dataDir });
  const c = new SqliteStore({ dataDir: t.dataDir });
  try {
    await run(b, () => new SqliteGraphIndex(c.db));
  } finally {
    await b.close();
    await c.close();
  }
}

const count = (sql: string, ...params: unknown[]): number => t.store.db.prepare(sql).pluck().get(...params) as number;

type Item = { content: string; timestamp: string; documentId?: string };
async function bankWith(bank: string, items: Item[]): Promise<void> {
  await t.engine.createBank({ id: bank });
  await t.engine.retain(bank, { items });
}

test("another connection's retains and consolidation reach a cached graph through the change log, without a reload", async () => {
  const bank = 'graph-log-follows';
  await bankWith(bank, [
    { content: 'Alice grows rare orchids with Ben.', timestamp: '2024-01-10T10:00:00Z', documentId: 'd0' },
    { content: 'Ben restores old sailboats in Lisbon.', timestamp: '2024-01-11T10:00:00Z', documentId: 'd0' },
  ]);
  await withOtherStores(async (b, fresh) => {
    assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank));
    const graph = cachedGraphOf(b.graph, bank);
    assert.ok(graph, 'B loaded the graph');
    assert.equal(b.graph.stats().loads, 1);
    const steps = [
      [
        { content: 'Alice moved to Paris with Chloe, who also grows orchids.', timestamp: '2024-02-01T10:00:00Z' },
        { content: 'Ben sold his sailboats to Dev in Lisbon.', timestamp: '2024-02-03T10:00:00Z' },
        { content: 'Alice grows rare orchids with Ben in spring.', timestamp: '2024-02-04T10:00:00Z' },
      ],
      [{ content: 'Erin met Farid in Oslo; Erin paints ships.', timestamp: '2024-03-01T10:00:00Z' }],
    ];
    for (const [n, items] of steps.entries()) {
      const before = count('SELECT count(*) FROM facts WHERE bank_id = ?', bank);
      await t.engine.retain(bank, { items: items.map((i) => ({ ...i, documentId: `d${n + 1}` })) });
      assert.ok(count('SELECT count(*) FROM facts WHERE bank_id = ?', bank) > before, 'the retain wrote facts');
      assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank), `after retain ${n + 1}: as a graph loaded afresh`);
      await t.worker.drain(bank);
      assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank), `after consolidation ${n + 1}: as a graph loaded afresh`);
    }
    assert.ok(count(`SELECT count(*) FROM facts WHERE bank_id = ? AND kind = 'observation'`, bank) > 0, 'consolidation made observations');
    // Links from later documents' facts to earlier ones: a catch-up re-reads the links of the facts it names to others.
    assert.ok(count(`SELECT count(*) FROM fact_links l JOIN facts a ON a.id = l.from_id JOIN facts z ON z.id = l.to_id
                     WHERE l.bank_id = ? AND a.document_id != z.document_id`, bank) > 0, 'links cross documents');
    assert.equal(b.graph.stats().loads, 1, 'B never reloaded the bank');
    assert.ok(b.graph.stats().catchUps >= 4, 'B caught up after every write');
    assert.equal(cachedGraphOf(b.graph, bank), graph, 'the same graph object, updated in place');
  });
});

test("a write of B's own while its graph is behind another connection's writes catches up rather than reloads", async () => {
  const bank = 'graph-log-own-write';
  await bankWith(bank, [{ content: 'Gina bakes bread in Porto.', timestamp: '2024-01-10T10:00:00Z' }]);
  await withOtherStores(async (b, fresh) => {
    const engineB = new Engine({ store: b, embedder: await GloveEmbedder.open({ cacheFile: gloveCacheFile() }), reranker: null, extractor: new OfflineExtractor() });
    await answers(b.graph, bank);
    await t.engine.retain(bank, { items: [{ content: 'Hugo sells Gina flour in Porto.', timestamp: '2024-01-11T10:00:00Z' }] });
    await engineB.retain(bank, { items: [{ content: 'Gina and Hugo opened a bakery in Braga.', timestamp: '2024-01-12T10:00:00Z' }] });
    assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank));
    assert.equal(b.graph.stats().loads, 1, 'B never reloaded the bank');
  });
});

test('deletions and retains that replace chunks reach another connection by a reload, exactly', async () => {
  const bank = 'graph-log-deletes';
  await bankWith(bank, [
    { content: 'Ivan climbs in Chamonix with Jana.', timestamp: '2024-01-10T10:00:00Z', documentId: 'a' },
    { content: 'Jana guides tours in Zermatt.', timestamp: '2024-01-11T10:00:00Z', documentId: 'b' },
  ]);
  await t.worker.drain(bank);
  await withOtherStores(async (b, fresh) => {
    await answers(b.graph, bank);
    const loads = b.graph.stats().loads;
    const factId = t.store.db.prepare(`SELECT id FROM facts WHERE bank_id = ? AND document_id = 'b' LIMIT 1`).pluck().get(bank) as string;
    await t.engine.deleteFact(bank, factId, 'test');
    assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank), 'after deleting a fact');
    assert.equal(b.graph.stats().loads, loads + 1, 'a deletion reloads');
    await t.engine.retain(bank, { items: [{ content: 'Ivan now climbs in Dolomites with Kemal.', timestamp: '2024-02-10T10:00:00Z', documentId: 'a' }] });
    assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank), 'after replacing a document');
    assert.equal(b.graph.stats().loads, loads + 2, 'replaced chunks reload');
    await t.engine.deleteDocument(bank, 'a', 'test');
    assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank), 'after deleting a document');
  });
});

test('a gap in the change log, or a catch-up larger than allowed, reloads', async () => {
  const bank = 'graph-log-gap';
  await bankWith(bank, [{ content: 'Lena rows on the Thames with Milo.', timestamp: '2024-01-10T10:00:00Z' }]);
  await withOtherStores(async (b, fresh) => {
    const small = new SqliteGraphIndex(b.db, { maxCatchUpIds: 1 });
    await answers(b.graph, bank);
    await answers(small, bank);
    await t.engine.retain(bank, { items: [{ content: 'Milo coaches rowing in Oxford.', timestamp: '2024-01-11T10:00:00Z' }] });
    await t.engine.retain(bank, { items: [{ content: 'Lena and Milo won a regatta in Henley.', timestamp: '2024-01-12T10:00:00Z' }] });
    // The first of the two versions is gone from the log (as when pruned): the versions in between are unknown.
    const version = count('SELECT graph_version FROM bank_versions WHERE bank_id = ?', bank);
    t.store.db.prepare('DELETE FROM graph_changes WHERE bank_id = ? AND version = ?').run(bank, version - 1);
    assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank));
    assert.equal(b.graph.stats().loads, 2, 'a gap reloads');
    assert.deepEqual(await answers(small, bank), await answers(fresh(), bank));
    assert.equal(small.stats().loads, 2, 'a catch-up of more ids than allowed reloads');
  });
});

test('a bank deleted and created again by another connection is never caught up from the old one', async () => {
  const bank = 'graph-log-recreated';
  await bankWith(bank, [{ content: 'Nora keeps bees in Ghent.', timestamp: '2024-01-10T10:00:00Z' }]);
  await withOtherStores(async (b, fresh) => {
    await answers(b.graph, bank);
    await t.engine.deleteBank(bank);
    // Created again with a creation time of its own (a restore from an export keeps the original one): the graph
    // versions, which carry on past the deleted bank's, tell the two banks apart.
    await t.store.createBank({ id: bank, name: bank, mission: '', config: {}, embedder: null, createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z' });
    for (const [n, content] of ['Otto fixes bikes in Utrecht.', 'Otto races bikes with Pia.', 'Pia builds wheels in Delft.'].entries())
      await t.engine.retain(bank, { items: [{ content, timestamp: `2024-02-1${n}T10:00:00Z` }] });
    assert.deepEqual(await answers(b.graph, bank), await answers(fresh(), bank));
  });
});

test('the change log is written with every version and keeps only the newest versions of a bank', () => {
  const bank = 'graph-log-pruned';
  const db = t.store.db;
  db.prepare(`INSERT INTO banks (id, name, mission, config, created_at, updated_at) VALUES (?, ?, '', '{}', '2024-01-01', '2024-01-01')`).run(bank, bank);
  db.transaction(() => {
    for (let i = 0; i < 1100; i++) bumpGraphVersion(db, bank, i % 2 ? [`f${i}`] : null);
  })();
  const version = count('SELECT graph_version FROM bank_versions WHERE bank_id = ?', bank);
  assert.equal(count('SELECT max(version) FROM graph_changes WHERE bank_id = ?', bank), version, 'the newest version is logged');
  assert.equal(db.prepare('SELECT fact_ids FROM graph_changes WHERE bank_id = ? AND version = ?').pluck().get(bank, version), '["f1099"]');
  assert.equal(db.prepare('SELECT fact_ids FROM graph_changes WHERE bank_id = ? AND version = ?').pluck().get(bank, version - 1), null);
  assert.equal(count('SELECT count(*) FROM graph_changes WHERE bank_id = ?', bank), 1000);
  assert.equal(count('SELECT min(version) FROM graph_changes WHERE bank_id = ?', bank), version - 999);
});
