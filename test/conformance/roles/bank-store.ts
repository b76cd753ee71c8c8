// Store conformance, BankStore role: banks: created, read, changed, deleted with everything of theirs, and kept apart.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { BANK_DELETED, type MemoryStore } from '../../../src/store/ports.ts';
import { type Conformance, idsOf } from '../context.ts';
import { at, bank, chunk, doc, fact, itemWrite, unit } from '../fixtures.ts';

export function bankStoreConformance(ctx: Conformance): void {
  describe('BankStore', () => {
    let store: MemoryStore;
    const { B, created, newBank, seeded, operation } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('banks: create, read, list, update; a second bank with the same id is refused', async () => {
      const id = await newBank('banks');
      const got = await store.getBank(id);
      assert.ok(got);
      assert.equal(got.mission, 'mission of banks');
      assert.deepEqual(got.config, { retainMission: 'remember people', nested: { a: 1 } });
      assert.equal(got.embedder, null);
      assert.ok((await store.listBanks()).some((b) => b.id === id));
      await store.updateBank({ ...got, name: 'renamed', mission: 'new mission', config: { x: 'y' }, updatedAt: at(9) });
      const updated = await store.getBank(id);
      assert.equal(updated?.name, 'renamed');
      assert.equal(updated?.mission, 'new mission');
      assert.deepEqual(updated?.config, { x: 'y' });
      await assert.rejects(store.createBank(bank(id)));
      assert.equal(await store.getBank(B('no-such-bank')), null);
    });

    test('banks are isolated: same content, separate answers; deleting one leaves the other', async () => {
      const one = await seeded('iso-a');
      const two = await seeded('iso-b');
      assert.ok(idsOf(await store.vectors.search(one.bankId, unit(0), 10)).every((id) => id.startsWith(one.bankId)));
      assert.ok(idsOf(await store.keywords.searchFacts(two.bankId, 'Berlin Vienna', 10)).every((id) => id.startsWith(two.bankId)));
      assert.ok(idsOf(await store.keywords.searchChunks(two.bankId, 'Berlin Vienna', 10)).every((id) => id.startsWith(two.bankId)));
      assert.deepEqual(await store.getFacts(one.bankId, [two.facts[0].id]), []);
      assert.deepEqual(await store.graph.entitiesByKeys(one.bankId, ['alice']).then(idsOf), [`${one.bankId}-e-alice`]);
      assert.deepEqual(await store.factsInTimeRange(two.bankId, at(9), at(11), 10).then(idsOf), [two.facts[0].id]);
      await store.deleteBank(one.bankId);
      created.delete(one.bankId);
      assert.equal(await store.getBank(one.bankId), null);
      assert.deepEqual(await store.getFacts(one.bankId, idsOf(one.facts)), []);
      assert.deepEqual(await store.vectors.search(one.bankId, unit(0), 10), []);
      assert.deepEqual(await store.keywords.searchFacts(one.bankId, 'Berlin', 10), []);
      assert.equal((await store.tombstones(one.bankId, 10)).filter((t) => t.kind === 'bank').length, 1);
      assert.equal((await store.listFacts(two.bankId, { limit: 10, offset: 0 })).total, 4);
      assert.equal((await store.vectors.search(two.bankId, unit(0), 10)).length, 4);
    });

    test('a bank id outside the one rule is refused; writing into a deleted bank fails as not found', async () => {
      for (const id of ['.', '..', 'a/b', 'bänk', 'x'.repeat(129)]) await assert.rejects(store.createBank(bank(id)), /letters, digits/, id);
      assert.equal(await store.getBank('..'), null);
      const bankId = await newBank('gone');
      await store.deleteBank(bankId, 'moved to another store');
      assert.equal((await store.tombstoneOf(bankId, bankId, ['bank']))?.reason, 'moved to another store');
      const other = await newBank('gone-plain');
      await store.deleteBank(other);
      assert.equal((await store.tombstoneOf(other, other, ['bank']))?.reason, BANK_DELETED);
      const c = chunk(bankId, `${bankId}-d`, `${bankId}-c`, 0, 'Quinn paints.');
      await assert.rejects(
        store.writeItem(itemWrite(bankId, doc(bankId, `${bankId}-d`), [c], [])),
        (e: Error & { code?: string }) => e.code === 'not_found',
      );
      await assert.rejects(
        store.writeItem(
          itemWrite(
            bankId,
            doc(bankId, `${bankId}-d`),
            [c],
            [{ fact: fact(bankId, `${bankId}-f`, 'Quinn paints', { chunk: c }), vector: unit(1) }],
          ),
        ),
        (e: Error & { code?: string }) => e.code === 'not_found',
      );
    });

    test('deleting a bank fails its unfinished operations (their input dropped) and keeps them readable; finished ones go', async () => {
      const bankId = await newBank('del-ops');
      const running = operation(bankId, `${bankId}-run`, 'running');
      const queued = operation(bankId, `${bankId}-queued`, 'queued');
      const done = operation(bankId, `${bankId}-done`, 'succeeded');
      assert.equal((await store.bindOperationKey(bankId, 'nightly', 'h', running)).created, true);
      await store.createOperation(queued);
      await store.createOperation(done);
      await store.deleteBank(bankId);
      for (const id of [running.id, queued.id]) {
        const op = await store.getOperation(id);
        assert.equal(op?.status, 'failed', id);
        assert.match(op?.error ?? '', new RegExp(`bank '${bankId}' was deleted`));
        assert.equal(op?.input, null, 'the content of a deleted bank is not kept');
      }
      assert.equal(await store.getOperation(done.id), null);
      assert.equal((await store.operationByKey(bankId, 'nightly'))?.id, running.id, 'still found by its key');
      assert.ok(!(await store.unfinishedOperations()).some((o) => o.bankId === bankId));
    });
  });
}
