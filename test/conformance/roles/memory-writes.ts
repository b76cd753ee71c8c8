// Store conformance, MemoryWrites role: item writes: atomic, read back whole, replacing old chunks, recording their operation.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { type MemoryStore, replacedWithDocument } from '../../../src/store/ports.ts';
import { type ChunkFacts, type Conformance, idsOf, sorted } from '../context.ts';
import { at, chunk, doc, EMBEDDER, fact, itemWrite, unit } from '../fixtures.ts';
import { CairnError } from '../../../src/core/index.ts';

export function memoryWritesConformance(ctx: Conformance): void {
  describe('MemoryWrites', () => {
    let store: MemoryStore;
    const { newBank, seeded, operation } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('writeItem: everything it wrote reads back', async () => {
      const { bankId, facts } = await seeded('write');
      const d = await store.getDocument(bankId, `${bankId}-d1`);
      assert.equal(d?.contentHash, `hash-${bankId}-d1`);
      assert.deepEqual(d?.metadata, { source: 'conformance' });
      const chunks = await store.listChunks(bankId, `${bankId}-d1`);
      assert.deepEqual(idsOf(chunks), [`${bankId}-c1`, `${bankId}-c2`]);
      assert.equal(chunks[0].speaker, 'Alice');
      assert.deepEqual(idsOf(await store.getChunks(bankId, [`${bankId}-c2`])), [`${bankId}-c2`]);
      const read = await store.getFacts(bankId, [facts[2].id, facts[0].id]);
      assert.deepEqual(idsOf(read), [facts[2].id, facts[0].id], 'in the order asked');
      for (const f of read) {
        const want = facts.find((x) => x.id === f.id)!;
        assert.deepEqual({ ...f, entities: sorted(f.entities) }, { ...want, entities: sorted(want.entities) });
      }
      const page = await store.listFacts(bankId, { limit: 3, offset: 0 });
      assert.equal(page.total, 4);
      assert.deepEqual(idsOf(page.facts), idsOf(facts.slice(0, 3)), 'in the order written');
      assert.deepEqual(idsOf((await store.listFacts(bankId, { limit: 3, offset: 3 })).facts), [facts[3].id]);
      assert.deepEqual(
        sorted(idsOf((await store.listFacts(bankId, { limit: 10, offset: 0, entityId: `${bankId}-e-anna` })).facts)),
        sorted([facts[2].id, facts[3].id]),
      );
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0, documentId: `${bankId}-d1`, kinds: ['experience'] })).total, 1);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0, tags: ['move', 'work'] })).total, 1);
      assert.equal((await store.getBank(bankId))?.embedder, EMBEDDER, 'the bank takes the embedder of its first vectors');
      const vectors = await store.getVectors(bankId, [facts[1].id]);
      assert.ok(vectors.get(facts[1].id));
      assert.ok(Math.abs(vectors.get(facts[1].id)![1] - unit(1)[1]) < 1e-6);
      const entities = await store.getEntities(bankId, [`${bankId}-e-anna`, `${bankId}-e-alice`]);
      assert.deepEqual(idsOf(entities), [`${bankId}-e-anna`, `${bankId}-e-alice`]);
      assert.deepEqual(idsOf(await store.listEntities(bankId, 10, 0)), [`${bankId}-e-alice`, `${bankId}-e-anna`], 'most mentioned first');
      assert.deepEqual(idsOf(await store.findEntities(bankId, ['ali'])), [`${bankId}-e-alice`], 'found by an alias key');
      const documents = await store.listDocuments(bankId, 10, 0);
      assert.deepEqual(idsOf(documents), [`${bankId}-d1`]);
      const links = await store.listLinks(bankId, 10, 0);
      assert.deepEqual(
        links.map((l) => `${l.from}>${l.to}:${l.type}:${l.weight}`).sort(),
        [`${facts[0].id}>${facts[1].id}:temporal:1`, `${facts[1].id}>${facts[2].id}:causal:0.5`].sort(),
      );
      const cf = store as MemoryStore & ChunkFacts;
      if (cf.factIdsOfChunks) {
        const owned = await cf.factIdsOfChunks(bankId, [`${bankId}-c2`]);
        assert.deepEqual(sorted(owned.map((o) => o.factId)), sorted([facts[2].id, facts[3].id]));
      }
    });

    test('writeItem is all or nothing', async () => {
      const { bankId, facts } = await seeded('atomic');
      const c = chunk(bankId, `${bankId}-d2`, `${bankId}-c9`, 0, 'The cat is called Miso.');
      const bad = itemWrite(
        bankId,
        doc(bankId, `${bankId}-d2`),
        [c],
        [{ fact: fact(bankId, `${bankId}-f9`, 'The cat is Miso', { chunk: c }), vector: unit(5) }],
        {
          embedder: 'another-embedder',
        },
      );
      await assert.rejects(store.writeItem(bad), /embedder|another-embedder/);
      assert.equal(await store.getDocument(bankId, `${bankId}-d2`), null, 'no document');
      assert.deepEqual(await store.getFacts(bankId, [`${bankId}-f9`]), [], 'no fact');
      assert.deepEqual(await store.listChunks(bankId, `${bankId}-d2`), [], 'no chunk');
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 4);

      const good = itemWrite(
        bankId,
        doc(bankId, `${bankId}-d2`),
        [c],
        [{ fact: fact(bankId, `${bankId}-f9`, 'The cat is Miso', { chunk: c }), vector: unit(5) }],
        {
          links: [{ bankId, from: facts[0].id, to: `${bankId}-f9`, type: 'semantic', weight: 0.7 }],
        },
      );
      await store.writeItem(good);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 5);
      assert.deepEqual(idsOf(await store.listChunks(bankId, `${bankId}-d2`)), [`${bankId}-c9`]);
      assert.equal((await store.listLinks(bankId, 10, 0)).length, 3);
    });

    test('a later part of a long item is refused once its document was deleted, and writes nothing', async () => {
      const { bankId } = await seeded('continues');
      const first = chunk(bankId, `${bankId}-d3`, `${bankId}-c30`, 0, 'The first part of a long note.');
      await store.writeItem(
        itemWrite(
          bankId,
          doc(bankId, `${bankId}-d3`),
          [first],
          [{ fact: fact(bankId, `${bankId}-f30`, 'First part', { chunk: first }), vector: unit(3) }],
        ),
      );
      const next = chunk(bankId, `${bankId}-d3`, `${bankId}-c31`, 1, 'The second part of a long note.');
      const later = {
        ...itemWrite(
          bankId,
          doc(bankId, `${bankId}-d3`),
          [next],
          [{ fact: fact(bankId, `${bankId}-f31`, 'Second part', { chunk: next }), vector: unit(4) }],
        ),
        continues: true,
      };
      assert.ok(await store.deleteDocument(bankId, `${bankId}-d3`, 'user request'));
      await assert.rejects(store.writeItem(later), (e: unknown) => e instanceof CairnError && e.code === 'conflict');
      assert.equal(await store.getDocument(bankId, `${bankId}-d3`), null, 'no document');
      assert.deepEqual(await store.listChunks(bankId, `${bankId}-d3`), [], 'no chunk');
      assert.deepEqual(await store.getFacts(bankId, [`${bankId}-f31`]), [], 'no fact');
      // Written afresh (a new retain's first part) it is stored; a later part then finds its document.
      await store.writeItem({ ...later, continues: false });
      const third = chunk(bankId, `${bankId}-d3`, `${bankId}-c32`, 2, 'The third part of a long note.');
      await store.writeItem({
        ...itemWrite(
          bankId,
          doc(bankId, `${bankId}-d3`),
          [third],
          [{ fact: fact(bankId, `${bankId}-f32`, 'Third part', { chunk: third }), vector: unit(5) }],
        ),
        continues: true,
      });
      assert.deepEqual(sorted(idsOf(await store.listChunks(bankId, `${bankId}-d3`))), [`${bankId}-c31`, `${bankId}-c32`]);
    });

    test('rewriting a document removes the facts of its old chunks from every index', async () => {
      const { bankId, facts } = await seeded('rewrite');
      const c3 = chunk(bankId, `${bankId}-d1`, `${bankId}-c3`, 1, 'My brother Tom plays chess.');
      const tom = fact(bankId, `${bankId}-f5`, 'Tom plays chess', { chunk: c3 });
      await store.writeItem(
        itemWrite(bankId, doc(bankId, `${bankId}-d1`, 'hash-2'), [c3], [{ fact: tom, vector: unit(6) }], {
          removeChunkIds: [`${bankId}-c2`],
        }),
      );
      assert.deepEqual(idsOf(await store.listChunks(bankId, `${bankId}-d1`)), [`${bankId}-c1`, `${bankId}-c3`]);
      assert.deepEqual(await store.getFacts(bankId, [facts[2].id, facts[3].id]), []);
      assert.equal((await store.getDocument(bankId, `${bankId}-d1`))?.contentHash, 'hash-2');
      assert.ok(!idsOf(await store.vectors.search(bankId, unit(3), 10)).includes(facts[3].id));
      assert.deepEqual(await store.keywords.searchFacts(bankId, 'violin', 10), []);
      assert.deepEqual(await store.keywords.searchChunks(bankId, 'violin', 10), []);
      assert.deepEqual(await store.graph.linksOf(bankId, [facts[2].id]), []);
      assert.deepEqual(await store.findEntities(bankId, ['anna']), [], 'an entity no fact mentions is gone');
      assert.deepEqual(idsOf(await store.keywords.searchFacts(bankId, 'chess', 10)), [tom.id]);
      // Each fact that went has a tombstone saying why; the facts kept have none.
      for (const gone of [facts[2].id, facts[3].id]) {
        const t = await store.tombstoneOf(bankId, gone, ['fact', 'observation']);
        assert.equal(t?.kind, 'fact', gone);
        assert.equal(t?.reason, replacedWithDocument(`${bankId}-d1`));
      }
      assert.equal(await store.tombstoneOf(bankId, facts[0].id, ['fact', 'observation']), null);
    });

    test('a write records its operation in the same transaction, and is refused once the operation is no longer running', async () => {
      const bankId = await newBank('checkpoint');
      const running = operation(bankId, `${bankId}-op`, 'running');
      await store.createOperation(running);
      const c = chunk(bankId, `${bankId}-d`, `${bankId}-c`, 0, 'Pia repairs clocks in Lyon.');
      const write = itemWrite(
        bankId,
        doc(bankId, `${bankId}-d`),
        [c],
        [{ fact: fact(bankId, `${bankId}-f`, 'Pia repairs clocks', { chunk: c }), vector: unit(1) }],
      );
      // A retain's checkpoint carries its chunks written and in all too (progress within a long item).
      const progress = { done: 1, total: 3, chunks: { done: 4, total: 9 } };
      const checkpoint = { ...running, progress, result: { facts: 1 }, updatedAt: at(3) };
      await store.writeItem({ ...write, operation: checkpoint });
      const recorded = await store.getOperation(running.id);
      assert.deepEqual([recorded?.status, recorded?.progress, recorded?.result], ['running', progress, { facts: 1 }]);
      assert.deepEqual((await store.listOperations(bankId, { limit: 10, offset: 0 })).find((o) => o.id === running.id)?.progress, progress);

      await store.updateOperation({ ...checkpoint, status: 'failed', error: 'stopped' });
      const c2 = chunk(bankId, `${bankId}-d2`, `${bankId}-c2`, 0, 'Pia sails.');
      const late = itemWrite(
        bankId,
        doc(bankId, `${bankId}-d2`),
        [c2],
        [{ fact: fact(bankId, `${bankId}-f2`, 'Pia sails', { chunk: c2 }), vector: unit(2) }],
      );
      await assert.rejects(
        store.writeItem({ ...late, operation: { ...checkpoint, progress: { done: 2, total: 3, chunks: { done: 8, total: 9 } } } }),
        /no longer running|failed/,
      );
      assert.equal(await store.getDocument(bankId, `${bankId}-d2`), null, 'nothing of the refused write');
      assert.deepEqual(await store.getFacts(bankId, [`${bankId}-f2`]), []);
      assert.deepEqual((await store.getOperation(running.id))?.progress, progress);
    });
  });
}
