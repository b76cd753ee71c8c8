// Store conformance, Forgetting role: deleting documents and facts through every index.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { FORGOTTEN_TEXT } from '../../../src/store/ports.ts';
import { type Conformance, idsOf, observationWrite, sorted } from '../context.ts';
import { at, chunk, doc, fact, itemWrite, observation, unit } from '../fixtures.ts';

export function forgettingConformance(ctx: Conformance): void {
  describe('Forgetting', () => {
    let store: MemoryStore;
    const { seeded } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('deleting a document cascades through every index, leaves a tombstone, and blanks observations citing it', async () => {
      const { bankId, facts } = await seeded('delete-doc');
      const c = chunk(bankId, `${bankId}-d2`, `${bankId}-c5`, 0, 'Bob paints watercolours.');
      const bob = fact(bankId, `${bankId}-f6`, 'Bob paints watercolours', { chunk: c });
      await store.writeItem(
        itemWrite(bankId, doc(bankId, `${bankId}-d2`), [c], [{ fact: bob, vector: unit(7) }], {
          links: [{ bankId, from: bob.id, to: facts[0].id, type: 'semantic', weight: 0.9 }],
        }),
      );
      const o = observation(bankId, `${bankId}-o1`, 'Alice moved to Berlin; Anna plays the violin');
      await store.applyObservations(
        observationWrite(bankId, {
          observations: [o],
          vectors: [{ id: o.id, vector: unit(2) }],
          evidence: [
            { observationId: o.id, factId: facts[0].id, role: 'supports', createdAt: at(5) },
            { observationId: o.id, factId: facts[2].id, role: 'supports', createdAt: at(5) },
          ],
          revisions: [
            {
              id: `${bankId}-r1`,
              observationId: o.id,
              oldText: null,
              newText: o.text,
              factIds: [facts[0].id, facts[2].id],
              reason: 'created',
              at: at(5),
            },
          ],
        }),
      );
      const deleted = await store.deleteDocument(bankId, `${bankId}-d1`, 'user asked');
      assert.ok(deleted);
      assert.deepEqual(sorted(deleted.factIds), sorted(idsOf(facts)));
      assert.deepEqual(deleted.observationIds, [o.id]);
      assert.equal(await store.getDocument(bankId, `${bankId}-d1`), null);
      assert.deepEqual(await store.listChunks(bankId, `${bankId}-d1`), []);
      assert.deepEqual(await store.getFacts(bankId, idsOf(facts)), []);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 2, 'the other document and the observation remain');
      assert.deepEqual((await store.getVectors(bankId, idsOf(facts))).size, 0);
      assert.deepEqual(idsOf(await store.vectors.search(bankId, unit(0), 10)), [bob.id]);
      assert.deepEqual(await store.keywords.searchFacts(bankId, 'Berlin violin', 10), []);
      assert.deepEqual(await store.keywords.searchChunks(bankId, 'Berlin violin', 10), []);
      assert.deepEqual(await store.graph.linksOf(bankId, [bob.id]), []);
      assert.deepEqual(await store.evidenceOf(bankId, o.id), []);
      assert.deepEqual(await store.findEntities(bankId, ['alice', 'anna']), []);
      const [blank] = await store.getObservations(bankId, [o.id]);
      assert.equal(blank.text, FORGOTTEN_TEXT, 'the observation no longer quotes the deleted facts');
      assert.ok((await store.historyOf(bankId, o.id)).every((r) => r.newText === FORGOTTEN_TEXT));
      const tombstones = await store.tombstones(bankId, 10);
      const t = tombstones.find((x) => x.kind === 'document');
      assert.equal(t?.targetId, `${bankId}-d1`);
      assert.equal(t?.reason, 'user asked');
      assert.ok(!JSON.stringify(tombstones).includes('Berlin'), 'a tombstone never holds the content');
      assert.equal(await store.deleteDocument(bankId, `${bankId}-d1`, 'again'), null);
      assert.equal((await store.tombstoneOf(bankId, `${bankId}-d1`, ['document']))?.kind, 'document');
      assert.equal(await store.tombstoneOf(bankId, `${bankId}-d1`, ['fact', 'observation']), null);
      // Each fact that went with the document has a tombstone of its own, naming the document.
      for (const f of facts) {
        const gone = await store.tombstoneOf(bankId, f.id, ['fact', 'observation']);
        assert.equal(gone?.kind, 'fact', f.id);
        assert.equal(gone?.reason, `user asked (with document '${bankId}-d1')`);
      }
    });

    test('deleting facts: tombstones per fact, a fact they superseded is current again', async () => {
      const { bankId, facts } = await seeded('delete-facts');
      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: facts[0].id, by: facts[1].id, at: at(6) }] }));
      const deleted = await store.deleteFacts(bankId, [facts[1].id, `${bankId}-missing`], 'wrong');
      assert.deepEqual(deleted.factIds, [facts[1].id]);
      const [back] = await store.getFacts(bankId, [facts[0].id]);
      assert.equal(back.status, 'active');
      assert.equal(back.supersededBy, null);
      assert.ok(idsOf(await store.vectors.search(bankId, unit(1), 10)).every((id) => id !== facts[1].id));
      assert.deepEqual(await store.graph.linksOf(bankId, [facts[0].id]), []);
      assert.deepEqual(
        (await store.tombstones(bankId, 10)).map((t) => `${t.kind}:${t.targetId}:${t.reason}`),
        [`fact:${facts[1].id}:wrong`],
      );
      assert.equal((await store.tombstoneOf(bankId, facts[1].id, ['fact']))?.reason, 'wrong');
      assert.equal(await store.tombstoneOf(bankId, facts[0].id, ['fact']), null);
      assert.equal(await store.tombstoneOf('no-such-bank', facts[1].id, ['fact']), null);
      assert.equal(await store.tombstoneOf(bankId, facts[1].id, ['document']), null);
    });
  });
}
