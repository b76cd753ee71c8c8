// Store conformance, AuditReads role: observations with their evidence and history, and tombstones page by page.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { type Conformance, idsOf, observationWrite } from '../context.ts';
import { at, observation, unit } from '../fixtures.ts';

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
      const revised = { ...o, text: 'Alice lives in Berlin', updatedAt: at(6) };
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
      assert.equal((await store.getObservations(bankId, [o.id]))[0].text, 'Alice lives in Berlin');
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
