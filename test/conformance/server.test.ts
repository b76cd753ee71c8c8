// The store conformance suite on the server store (Neo4j + Qdrant), and the consistency guarantees only a
// two-store write has: a write that dies half-way leaves nothing recall can return, re-applying a write changes
// nothing, reconcile repairs drift, and two processes share one store without double-claiming. Also the thread
// store and usage ledger suites on their Neo4j adapters (two ServerStores stand for two API processes).
// Runs only against real servers:
//   NEO4J_URI=bolt://localhost:7687 NEO4J_PASSWORD=... QDRANT_URL=http://localhost:6333 \
//     node --import tsx --test test/conformance/server.test.ts
// Without NEO4J_URI and QDRANT_URL it prints a SKIPPED line and skips. Use scratch servers: the suite writes banks
// named conf-<run>-* and deletes them at the end; Qdrant collections get the prefix 'cairn-conformance'.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose } from '../../src/compose.ts';
import { after, before, describe, test } from 'node:test';
import { hasServerEnv, loadConfig } from '../../src/config/index.ts';
import { createEmbedder } from '../../src/embed/select.ts';
import { TEST_CACHE_DIR } from '../support/embed.ts';
import type { Embedder } from '../../src/embed/ports.ts';
import { dropBank } from '../../src/store/neo4j/deletes.ts';
import { KEYWORD_INDEX_PREFIX, keywordNames } from '../../src/store/neo4j/keyword-names.ts';
import { fulltextIndexNames } from '../../src/store/neo4j/statements/keyword-schema.ts';
import { cypher } from '../../src/store/neo4j/statement.ts';
import { Neo4jThreadStore } from '../../src/store/neo4j/threads.ts';
import { Neo4jUsageLedger } from '../../src/store/neo4j/usage.ts';
import { stageItem } from '../../src/store/neo4j/writes.ts';
import { reconcile } from '../../src/store/reconcile.ts';
import type { ServerStoreOptions } from '../../src/store/server/options.ts';
import { ServerStore } from '../../src/store/server/store.ts';
import { at, bank, chunk, doc, fact, itemWrite, runId } from './fixtures.ts';
import { ledgerConformance } from './ledger-suite.ts';
import { storeConformance } from './suite.ts';
import { threadStoreConformance } from './threads-suite.ts';

export const SKIP_MESSAGE = 'SKIPPED: neo4j+qdrant conformance (set NEO4J_URI and QDRANT_URL to run)';

if (!hasServerEnv(process.env)) {
  console.log(SKIP_MESSAGE);
  test('neo4j+qdrant conformance', { skip: SKIP_MESSAGE }, () => {});
} else {
  const store = loadConfig({ ...process.env, CAIRN_STORE: 'server' }).store;
  if (store.kind !== 'server') throw new Error('CAIRN_STORE=server gives the server store');
  const base = store.server;
  const options: ServerStoreOptions = { ...base, qdrant: { ...base.qdrant, collectionPrefix: 'cairn-conformance' } };

  storeConformance('neo4j + qdrant (server)', { open: () => ServerStore.open(options) });

  threadStoreConformance('neo4j (server)', {
    async open() {
      const [banks, second] = [await ServerStore.open(options), await ServerStore.open(options)];
      return {
        banks,
        threads: new Neo4jThreadStore(banks.db),
        other: new Neo4jThreadStore(second.db),
        async close() {
          await second.close();
          await banks.close();
        },
      };
    },
  });

  ledgerConformance('neo4j (server)', {
    async open(prefix) {
      const store = await ServerStore.open(options);
      return {
        ledger: new Neo4jUsageLedger(store.db),
        async close() {
          await store.db.write(cypher('MATCH (u:LlmUsage) WHERE u.bankId STARTS WITH $prefix DELETE u', { prefix }));
          await store.close();
        },
      };
    },
  });

  describe('server store: consistency across Neo4j and Qdrant', () => {
    const run = runId();
    let store: ServerStore;
    let embedder: Embedder;
    const banks: string[] = [];
    const HOUR = 3_600_000;

    before(async () => {
      store = await ServerStore.open(options);
      embedder = (await createEmbedder(loadConfig({ CAIRN_CACHE_DIR: TEST_CACHE_DIR }).embed)).embedder;
    });
    after(async () => {
      for (const id of banks) await store.deleteBank(id).catch(() => undefined);
      await store.close();
    });

    async function newBank(name: string): Promise<string> {
      const id = `conf-${run}-${name}`;
      await store.createBank(bank(id));
      banks.push(id);
      return id;
    }

    async function sample(bankId: string, n = 2) {
      const texts = ['Alice moved to Berlin', 'Anna plays the violin in Vienna', 'Bob paints watercolours'].slice(0, n);
      const c = chunk(bankId, `${bankId}-d1`, `${bankId}-c1`, 0, texts.join('. '));
      const vectors = await embedder.embed(texts);
      const facts = texts.map((t, i) => fact(bankId, `${bankId}-f${i}`, t, { chunk: c }));
      return {
        write: itemWrite(
          bankId,
          doc(bankId, `${bankId}-d1`),
          [c],
          facts.map((f, i) => ({ fact: f, vector: vectors[i] })),
          { embedder: embedder.id },
        ),
        facts,
      };
    }

    test('a write that died after staging is invisible everywhere; reconcile completes it from the kept vectors', async () => {
      const bankId = await newBank('died-staged');
      const { write, facts } = await sample(bankId);
      await stageItem(store.db, write, new Date(Date.now() - HOUR).toISOString());
      const [query] = await embedder.embed(['Alice moved to Berlin']);
      assert.deepEqual(
        await store.getFacts(
          bankId,
          facts.map((f) => f.id),
        ),
        [],
      );
      assert.deepEqual(await store.vectors.search(bankId, query, 5), []);
      assert.deepEqual(await store.keywords.searchFacts(bankId, 'Berlin', 5), []);
      assert.deepEqual(await store.keywords.searchChunks(bankId, 'Berlin', 5), []);
      assert.deepEqual(await store.listChunks(bankId, `${bankId}-d1`), []);
      assert.equal((await store.getDocument(bankId, `${bankId}-d1`))?.contentHash, 'incomplete', 'a re-retain would redo the document');
      assert.equal(await store.claimUnconsolidated(bankId, 'w', 10, 60_000), null, 'nothing to consolidate');

      const report = await reconcile(store, { pendingOlderThanMs: 60_000 });
      assert.ok(report.stagingsCompleted >= 1);
      assert.equal(
        (
          await store.getFacts(
            bankId,
            facts.map((f) => f.id),
          )
        ).length,
        2,
      );
      assert.equal((await store.vectors.search(bankId, query, 1))[0]?.id, facts[0].id);
      assert.equal((await store.getDocument(bankId, `${bankId}-d1`))?.contentHash, write.document.contentHash);
    });

    test('a write that died after its Qdrant upsert: the points are never returned until the write completes', async () => {
      const bankId = await newBank('died-upserted');
      const { write, facts } = await sample(bankId);
      const staged = await stageItem(store.db, write, new Date(Date.now() - HOUR).toISOString());
      await store.qdrant.upsert(
        embedder.id,
        staged.sources.map((source, i) => ({ source, vector: write.vectors[i].vector })),
      );
      const [query] = await embedder.embed(['Anna violin Vienna']);
      assert.deepEqual(await store.vectors.search(bankId, query, 5), [], 'Neo4j does not confirm staged facts');
      await reconcile(store, { pendingOlderThanMs: 60_000 });
      assert.equal((await store.vectors.search(bankId, query, 1))[0]?.id, facts[1].id);
    });

    test('a young staging is left alone (it may be a write in flight)', async () => {
      const bankId = await newBank('young');
      const { write, facts } = await sample(bankId);
      await stageItem(store.db, write, new Date().toISOString());
      await reconcile(store, { pendingOlderThanMs: HOUR });
      assert.deepEqual(
        await store.getFacts(
          bankId,
          facts.map((f) => f.id),
        ),
        [],
      );
    });

    test('re-applying a write changes nothing', async () => {
      const bankId = await newBank('reapply');
      const { write } = await sample(bankId, 3);
      await store.writeItem(write);
      await store.writeItem(write);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 3);
      assert.equal((await store.listChunks(bankId, `${bankId}-d1`)).length, 1);
      const [query] = await embedder.embed(['watercolours']);
      assert.equal((await store.vectors.search(bankId, query, 10)).length, 3);
    });

    test('reconcile deletes orphan points and restores missing ones', async () => {
      const bankId = await newBank('drift');
      const { write, facts } = await sample(bankId, 3);
      await store.writeItem(write);
      const [orphanVector] = await embedder.embed(['Alice moved to Berlin']);
      await store.qdrant.upsert(embedder.id, [
        { source: { id: `${bankId}-ghost`, bankId, kind: 'world', tags: [], createdAt: at(3) }, vector: orphanVector },
      ]);
      await store.qdrant.deleteFacts(embedder.id, [facts[2].id]);
      const dry = await reconcile(store, { dryRun: true });
      assert.ok(dry.orphanPoints >= 1 && dry.missingPoints >= 1);
      assert.equal((await store.qdrant.existing(embedder.id, [`${bankId}-ghost`])).size, 1, 'a dry run changes nothing');

      const flagged = await reconcile(store);
      assert.ok(flagged.flagged >= 1, 'without the embedder, a missing point is flagged');
      assert.equal((await store.qdrant.existing(embedder.id, [`${bankId}-ghost`])).size, 0, 'the orphan is gone');
      const repaired = await reconcile(store, { embedder });
      assert.ok(repaired.reembedded >= 1);
      assert.equal(
        (
          await store.qdrant.existing(
            embedder.id,
            facts.map((f) => f.id),
          )
        ).size,
        3,
      );
    });

    test("reconcile drops the keyword indexes of a bank whose deletion died before dropping them, and no live bank's", async () => {
      const bankId = await newBank('died-deleting');
      const liveId = await newBank('still-here');
      await store.writeItem((await sample(bankId)).write);
      await dropBank(store.db, bankId, 'died deleting', new Date().toISOString());
      const gone = keywordNames(bankId);
      const live = keywordNames(liveId);
      const dry = await reconcile(store, { dryRun: true });
      assert.ok(dry.orphanKeywordIndexes.includes(gone.factIndex) && dry.orphanKeywordIndexes.includes(gone.chunkIndex));
      assert.ok(!dry.orphanKeywordIndexes.includes(live.factIndex));
      assert.ok((await store.orphanKeywordIndexes()).includes(gone.factIndex), 'a dry run changes nothing');
      const real = await reconcile(store);
      assert.ok(real.orphanKeywordIndexes.includes(gone.chunkIndex) && real.sweptBanks.includes(bankId));
      assert.deepEqual(
        (await store.orphanKeywordIndexes()).filter((n) => n === gone.factIndex || n === gone.chunkIndex),
        [],
      );
      const remaining = (await store.db.autoCommit(fulltextIndexNames(KEYWORD_INDEX_PREFIX))).map((r) => String(r.name));
      assert.ok(remaining.includes(live.factIndex) && remaining.includes(live.chunkIndex), "the live bank's indexes stay");
      assert.ok(!remaining.includes(gone.factIndex));
    });

    test('two processes share the store: same answers, and a fact is never claimed twice', async () => {
      const bankId = await newBank('two-processes');
      const { write } = await sample(bankId, 3);
      await store.writeItem(write);
      const other = await ServerStore.open(options);
      try {
        const [query] = await embedder.embed(['Berlin']);
        assert.deepEqual(await other.vectors.search(bankId, query, 3), await store.vectors.search(bankId, query, 3));
        const claims = await Promise.all([
          store.claimUnconsolidated(bankId, 'worker-1', 3, 60_000),
          other.claimUnconsolidated(bankId, 'worker-2', 3, 60_000),
          store.claimUnconsolidated(bankId, 'worker-3', 3, 60_000),
          other.claimUnconsolidated(bankId, 'worker-4', 3, 60_000),
        ]);
        const claimed = claims.flatMap((c) => c?.factIds ?? []);
        assert.equal(claimed.length, 3);
        assert.equal(new Set(claimed).size, 3);
      } finally {
        await other.close();
      }
    });
  });

  describe('server mode is stateless: two composed processes share thread memory, and neither opens a SQLite file', () => {
    test('a thread written through one composition is read through the other; the data directory stays empty', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'cairn-stateless-'));
      const config = loadConfig({
        ...process.env,
        CAIRN_STORE: 'server',
        CAIRN_DATA_DIR: dataDir,
        CAIRN_QDRANT_PREFIX: 'cairn-conformance',
        CAIRN_CACHE_DIR: TEST_CACHE_DIR,
      });
      const [a, b] = [
        await compose(config, { startWorker: false, announce: false }),
        await compose(config, { startWorker: false, announce: false }),
      ];
      const bankId = `conf-${runId()}-stateless`;
      try {
        await a.engine.createBank({ id: bankId });
        await a.threads.append(bankId, 't1', { messages: [{ role: 'user', content: 'I moved to Berlin last spring.' }] });
        await b.threads.append(bankId, 't1', { messages: [{ role: 'assistant', content: 'How do you like Berlin?' }] });
        const seen = await a.threadStore.listMessages(bankId, 't1');
        assert.deepEqual(
          seen.map((m) => [m.seq, m.content]),
          [
            [1, 'I moved to Berlin last spring.'],
            [2, 'How do you like Berlin?'],
          ],
        );
        assert.deepEqual(
          readdirSync(dataDir).filter((f) => /\.db/.test(f)),
          [],
          'no SQLite file in server mode',
        );
      } finally {
        await a.engine.deleteBank(bankId).catch(() => undefined);
        await a.shutdown();
        await b.shutdown();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
