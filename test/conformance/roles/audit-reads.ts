// Store conformance, AuditReads role: observations with their evidence and history, tombstones page by page, the
// facts of one session, and the co-mention graph of entities.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { type Conformance, idsOf, observationWrite } from '../context.ts';
import { at, chunk, doc, entity, fact, itemWrite, observation, unit } from '../fixtures.ts';

export function auditReadsConformance(ctx: Conformance): void {
  describe('AuditReads', () => {
    let store: MemoryStore;
    const { newBank, seeded } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('observations: evidence, history, proof counts; a stale revision is refused', async () => {
      const { bankId, facts } = await seeded('observations');
      const o = observation(bankId, `${bankId}-o1`, 'Alice lives in Berlin and works at a startup', at(5), [`${bankId}-e-alice`]);
      await store.applyObservations(
        observationWrite(bankId, {
          observations: [o],
          vectors: [{ id: o.id, vector: unit(0, 1, 1) }],
          evidence: [
            { observationId: o.id, factId: facts[0].id, role: 'supports', createdAt: at(5, 1) },
            { observationId: o.id, factId: facts[1].id, role: 'supports', createdAt: at(5, 2) },
          ],
          revisions: [
            {
              id: `${bankId}-r1`,
              observationId: o.id,
              oldText: null,
              newText: o.text,
              factIds: [facts[0].id, facts[1].id],
              reason: 'created',
              at: at(5),
            },
          ],
        }),
      );
      const [got] = await store.getObservations(bankId, [o.id]);
      assert.equal(got.text, o.text);
      assert.equal(got.proofCount, 2);
      assert.deepEqual(
        (await store.evidenceOf(bankId, o.id)).map((e) => e.factId),
        [facts[0].id, facts[1].id],
      );
      assert.deepEqual(
        (await store.observationsOfFact(bankId, facts[1].id)).map((e) => e.observationId),
        [o.id],
      );
      assert.ok(idsOf(await store.vectors.search(bankId, unit(0, 1, 1), 3, { kinds: ['observation'] })).includes(o.id));
      // A revision moves every time it carries: when it happened and when it was last said too.
      const revised = { ...o, text: 'Alice lives in Berlin', occurredStart: at(2), mentionedAt: at(6), updatedAt: at(6) };
      await store.applyObservations(
        observationWrite(bankId, {
          observations: [revised],
          evidence: [{ observationId: o.id, factId: facts[2].id, role: 'contradicts', createdAt: at(6) }],
          revisions: [
            {
              id: `${bankId}-r2`,
              observationId: o.id,
              oldText: o.text,
              newText: revised.text,
              factIds: [facts[2].id],
              reason: 'refined',
              at: at(6),
            },
          ],
          expectUnchanged: [{ id: o.id, updatedAt: o.updatedAt }],
        }),
      );
      const [kept] = await store.getObservations(bankId, [o.id]);
      assert.deepEqual([kept.text, kept.occurredStart, kept.mentionedAt], ['Alice lives in Berlin', at(2), at(6)]);
      assert.equal((await store.getObservations(bankId, [o.id]))[0].proofCount, 2, 'a contradiction is not proof');
      assert.deepEqual(
        (await store.historyOf(bankId, o.id)).map((r) => r.reason),
        ['created', 'refined'],
      );
      await assert.rejects(
        store.applyObservations(
          observationWrite(bankId, {
            observations: [{ ...revised, text: 'stale' }],
            expectUnchanged: [{ id: o.id, updatedAt: o.updatedAt }],
          }),
        ),
        /changed/,
      );
      assert.equal((await store.getObservations(bankId, [o.id]))[0].text, 'Alice lives in Berlin');
      await store.applyObservations(observationWrite(bankId, { removeObservationIds: [o.id] }));
      assert.deepEqual(await store.getObservations(bankId, [o.id]), []);
      assert.deepEqual(await store.observationsOfFact(bankId, facts[0].id), []);
    });

    test('listFacts of one session: only facts whose source item belongs to it, under the other filters and pages', async () => {
      const { bankId, facts } = await seeded('session-facts');
      const d2 = `${bankId}-d2`;
      const c3 = { ...chunk(bankId, d2, `${bankId}-c3`, 0, 'We met Bob at the cafe.'), session: 'chat 2' };
      const c4 = { ...chunk(bankId, d2, `${bankId}-c4`, 1, 'An item of no session.'), session: null };
      const f5 = fact(bankId, `${bankId}-f5`, 'Alice met Bob at the cafe', { chunk: c3, createdAt: at(5) });
      const f6 = fact(bankId, `${bankId}-f6`, 'An item of no session', { chunk: c4, createdAt: at(5, 13) });
      await store.writeItem(
        itemWrite(
          bankId,
          doc(bankId, d2),
          [c3, c4],
          [
            { fact: f5, vector: unit(5) },
            { fact: f6, vector: unit(6) },
          ],
        ),
      );
      const d1 = `${bankId}-d1`;
      assert.deepEqual((await store.sessions(bankId)).map((x) => x.id).sort(), [d1, 'chat 2'].sort());
      const list = (q: { session: string; limit?: number; offset?: number; kinds?: Array<'world' | 'experience'> }) =>
        store.listFacts(bankId, { limit: 50, offset: 0, ...q });
      const first = await list({ session: d1 });
      assert.deepEqual([idsOf(first.facts), first.total], [idsOf(facts), 4]);
      const second = await list({ session: 'chat 2' });
      assert.deepEqual([idsOf(second.facts), second.total], [[f5.id], 1]);
      const page = await list({ session: d1, limit: 2, offset: 2 });
      assert.deepEqual([idsOf(page.facts), page.total], [[facts[2].id, facts[3].id], 4]);
      const experiences = await list({ session: d1, kinds: ['experience'] });
      assert.deepEqual([idsOf(experiences.facts), experiences.total], [[facts[2].id], 1]);
      assert.deepEqual(await list({ session: 'no such session' }), { facts: [], total: 0 });
      const other = await seeded('session-facts-other');
      assert.deepEqual(
        idsOf((await store.listFacts(other.bankId, { limit: 50, offset: 0, session: d1 })).facts),
        [],
        "another bank's session",
      );
    });

    test('entityGraph: co-mentions among the given entities, weighted by the active facts that mention both', async () => {
      const { bankId } = await seeded('entity-graph');
      const [alice, anna] = [`${bankId}-e-alice`, `${bankId}-e-anna`];
      // Mention counts that do not match the facts: they only steer the reading, never the weights.
      const bob = entity(bankId, `${bankId}-e-bob`, 'Bob', [], 100);
      const carol = entity(bankId, `${bankId}-e-carol`, 'Carol', [], 0);
      const d2 = `${bankId}-d2`;
      const c3 = chunk(bankId, d2, `${bankId}-c3`, 0, 'Alice, Anna and Bob went hiking; Carol stayed home.');
      const more = [
        fact(bankId, `${bankId}-f5`, 'Alice, Anna and Bob went hiking', { chunk: c3, entities: [alice, anna, bob.id] }),
        fact(bankId, `${bankId}-f6`, 'Bob drove Anna home', { chunk: c3, entities: [bob.id, anna] }),
        fact(bankId, `${bankId}-f7`, 'Carol stayed home', { chunk: c3, entities: [carol.id] }),
        fact(bankId, `${bankId}-f8`, 'Alice once worked with Bob', { chunk: c3, entities: [alice, bob.id] }),
      ];
      await store.writeItem(
        itemWrite(
          bankId,
          doc(bankId, d2),
          [c3],
          more.map((f, i) => ({ fact: f, vector: unit(i + 4) })),
          { entities: [bob, carol] },
        ),
      );
      // Seeded: f3 mentions Anna and Alice. A superseded fact and a deleted one no longer count; an observation does.
      await store.applyObservations(observationWrite(bankId, { supersede: [{ factId: more[3].id, by: more[0].id, at: at(6) }] }));
      const o = observation(bankId, `${bankId}-o1`, 'Bob and Carol are neighbours', at(6), [bob.id, carol.id]);
      await store.applyObservations(observationWrite(bankId, { observations: [o], vectors: [{ id: o.id, vector: unit(7) }] }));
      const all = [alice, anna, bob.id, carol.id];
      assert.deepEqual(await store.entityGraph(bankId, all), [
        { source: alice, target: anna, weight: 2 },
        { source: alice, target: bob.id, weight: 1 },
        { source: anna, target: bob.id, weight: 2 },
        { source: bob.id, target: carol.id, weight: 1 },
      ]);
      await store.deleteFacts(bankId, [more[1].id], 'gone');
      assert.deepEqual(
        (await store.entityGraph(bankId, [carol.id, bob.id, anna, bob.id])).map((e) => [e.source, e.target, e.weight]),
        [
          [anna, bob.id, 1],
          [bob.id, carol.id, 1],
        ],
        'only pairs of the entities given (each once), in any order given',
      );
      const other = await seeded('entity-graph-other');
      assert.deepEqual(
        await store.entityGraph(bankId, [alice, `${other.bankId}-e-anna`, 'no-such-entity']),
        [],
        'ids of other banks are ignored',
      );
      assert.deepEqual(await store.entityGraph(bankId, [alice]), []);
      assert.deepEqual(await store.entityGraph(bankId, []), []);
    });

    test('tombstones: pages newest first (ties by id), and exported ones are restored as they were', async () => {
      const { bankId, facts } = await seeded('tombstone-pages');
      await store.deleteFacts(bankId, idsOf(facts).slice(0, 3), 'one by one');
      const all = await store.tombstones(bankId, 100);
      assert.equal(all.length, 3);
      const newestFirst = <T extends { at: string; id: string }>(ts: T[]): T[] =>
        [...ts].sort((a, b) => (a.at !== b.at ? (a.at < b.at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      assert.deepEqual(all, newestFirst(all));
      const paged = [...(await store.tombstones(bankId, 2, 0)), ...(await store.tombstones(bankId, 2, 2))];
      assert.deepEqual(paged, all);
      const copy = await newBank('tombstone-restore');
      const restored = [
        ...all.map((t) => ({ ...t, id: `${t.id}-copy`, bankId: copy })),
        { id: `${copy}-t-old`, bankId: copy, kind: 'bank' as const, targetId: copy, reason: 'bank deleted', at: at(1) },
      ];
      await store.restoreTombstones(restored);
      assert.deepEqual(await store.tombstones(copy, 100), newestFirst(restored));
      assert.equal((await store.tombstones(bankId, 100)).length, 3, 'the other bank keeps its own');
    });
  });
}
