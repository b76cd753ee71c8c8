// Store conformance, OperationStore role: operations, their holders and idempotency keys.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { type Conformance, idsOf, sorted } from '../context.ts';
import { at } from '../fixtures.ts';

export function operationStoreConformance(ctx: Conformance): void {
  describe('OperationStore', () => {
    let store: MemoryStore;
    const { B, newBank, operation } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('operations are held by the process running them: taken over only from the holder named, once; the old holder writes no more', async () => {
      const bankId = await newBank('owners');
      const op = {
        id: `${bankId}-op`,
        bankId,
        kind: 'retain',
        status: 'running' as const,
        progress: { done: 0, total: 3 },
        input: null,
        result: null,
        error: null,
        createdAt: at(1),
        updatedAt: at(1),
        owner: 'proc-a',
      };
      await store.createOperation(op);
      assert.equal((await store.unfinishedOperations()).find((o) => o.id === op.id)?.owner, 'proc-a');
      assert.equal(await store.adoptOperation(op.id, 'proc-x', 'proc-b'), false, 'only from the holder it names');
      assert.equal(await store.adoptOperation(op.id, 'proc-a', 'proc-b'), true);
      assert.equal(await store.adoptOperation(op.id, 'proc-a', 'proc-c'), false, 'taken over once');
      assert.equal(
        await store.updateOperation({ ...op, progress: { done: 2, total: 3 }, updatedAt: at(2) }),
        false,
        'the old holder writes no more',
      );
      assert.equal((await store.getOperation(op.id))?.progress.done, 0);
      assert.equal((await store.getOperation(op.id))?.owner, 'proc-b');
      assert.equal(
        await store.updateOperation({ ...op, owner: 'proc-b', status: 'succeeded', progress: { done: 3, total: 3 }, updatedAt: at(3) }),
        true,
      );
      assert.equal((await store.getOperation(op.id))?.status, 'succeeded');
      assert.equal(await store.adoptOperation(op.id, 'proc-b', 'proc-c'), false, 'a finished operation is not taken over');
      const unheld = { ...op, id: `${bankId}-op2`, owner: null };
      await store.createOperation(unheld);
      assert.equal(await store.adoptOperation(unheld.id, null, 'proc-b'), true, 'an operation no process holds is taken over');
    });

    test("a bank's operations: newest first (ties by id), of one status, a page at a time, without their input", async () => {
      const bankId = await newBank('op-list');
      const other = await newBank('op-list-other');
      const ops = [
        { ...operation(bankId, `${bankId}-a`, 'succeeded'), createdAt: at(2) },
        { ...operation(bankId, `${bankId}-c`, 'running'), createdAt: at(3) },
        { ...operation(bankId, `${bankId}-b`, 'failed'), createdAt: at(3), error: 'boom' },
        { ...operation(bankId, `${bankId}-d`, 'running'), createdAt: at(4), progress: { done: 2, total: 3 } },
        { ...operation(bankId, `${bankId}-e`, 'queued'), createdAt: at(1) },
      ];
      for (const op of ops) await store.createOperation(op);
      await store.createOperation({ ...operation(other, `${other}-x`, 'running'), createdAt: at(5) });
      const all = await store.listOperations(bankId, { limit: 50, offset: 0 });
      assert.deepEqual(idsOf(all), [`${bankId}-d`, `${bankId}-c`, `${bankId}-b`, `${bankId}-a`, `${bankId}-e`]);
      assert.deepEqual(all[0].progress, { done: 2, total: 3 });
      assert.equal(all[2].error, 'boom');
      assert.ok(
        all.every((o) => o.input === null),
        'listed without their input',
      );
      assert.deepEqual((await store.getOperation(`${bankId}-d`))?.input, { items: [{ content: 'x' }] }, 'which is still stored');
      assert.deepEqual(idsOf(await store.listOperations(bankId, { limit: 50, offset: 0, status: 'running' })), [
        `${bankId}-d`,
        `${bankId}-c`,
      ]);
      assert.deepEqual(await store.listOperations(bankId, { limit: 50, offset: 0, status: 'queued' }).then(idsOf), [`${bankId}-e`]);
      const paged = [
        ...(await store.listOperations(bankId, { limit: 2, offset: 0 })),
        ...(await store.listOperations(bankId, { limit: 2, offset: 2 })),
        ...(await store.listOperations(bankId, { limit: 2, offset: 4 })),
      ];
      assert.deepEqual(idsOf(paged), idsOf(all));
      assert.deepEqual(await store.listOperations(bankId, { limit: 2, offset: 5 }), []);
      assert.deepEqual(idsOf(await store.listOperations(other, { limit: 50, offset: 0 })), [`${other}-x`], 'each bank lists its own');
      assert.deepEqual(await store.listOperations(ctx.B('no-such-bank'), { limit: 50, offset: 0 }), []);
    });

    test("retainsNaming finds the bank's unfinished retains with an item of the document id, oldest first", async () => {
      const bankId = await newBank('naming');
      const other = await newBank('naming-other');
      const odd = 'we"ird/ü \\ id';
      const items = (...docs: Array<string | undefined>) => ({
        items: docs.map((d, i) => ({ content: `item ${i} about "d-1"`, ...(d === undefined ? {} : { documentId: d }) })),
        documentMode: 'replace',
      });
      const make = async (
        id: string,
        bank: string,
        status: 'queued' | 'running' | 'succeeded',
        input: unknown,
        n: number,
        kind = 'retain',
      ) => store.createOperation({ ...operation(bank, `${bank}-${id}`, status), kind, input, createdAt: at(n), updatedAt: at(n) });
      await make('running', bankId, 'running', items('a', 'd-1'), 2);
      await make('queued', bankId, 'queued', items(odd, 'd-1'), 1);
      await make('done', bankId, 'succeeded', items('d-1'), 0);
      await make('near', bankId, 'queued', items('d-10', undefined), 3);
      await make('other-kind', bankId, 'queued', items('d-1'), 4, 'import');
      await make('no-input', bankId, 'running', null, 5);
      await make('elsewhere', other, 'queued', items('d-1'), 6);
      assert.deepEqual(await store.retainsNaming(bankId, 'd-1'), [`${bankId}-queued`, `${bankId}-running`]);
      assert.deepEqual(await store.retainsNaming(bankId, odd), [`${bankId}-queued`]);
      assert.deepEqual(await store.retainsNaming(bankId, 'd-10'), [`${bankId}-near`]);
      assert.deepEqual(await store.retainsNaming(bankId, 'item 0 about'), [], 'content is not a document id');
      assert.deepEqual(await store.retainsNaming(other, 'd-1'), [`${other}-elsewhere`]);
      await store.updateOperation({ ...operation(bankId, `${bankId}-queued`, 'failed'), input: items(odd, 'd-1'), updatedAt: at(7) });
      assert.deepEqual(await store.retainsNaming(bankId, 'd-1'), [`${bankId}-running`], 'a finished one no longer counts');
    });

    test('operations and idempotency keys', async () => {
      const bankId = await newBank('ops');
      const op = operation(bankId, `${bankId}-op1`, 'queued');
      await store.createOperation(op);
      assert.ok((await store.unfinishedOperations()).some((o) => o.id === op.id));
      await store.updateOperation({ ...op, status: 'succeeded', progress: { done: 3, total: 3 }, result: { facts: 2 }, updatedAt: at(2) });
      const got = await store.getOperation(op.id);
      assert.equal(got?.status, 'succeeded');
      assert.deepEqual(got?.progress, { done: 3, total: 3 });
      assert.deepEqual(got?.result, { facts: 2 });
      assert.deepEqual(got?.input, { items: [{ content: 'x' }] });
      assert.ok(!(await store.unfinishedOperations()).some((o) => o.id === op.id));
      assert.equal(await store.getOperation('no-such-op'), null);
      // A conditional update applies only from the statuses given.
      assert.equal(await store.updateOperation({ ...op, status: 'running', updatedAt: at(3) }, ['queued']), false);
      assert.equal((await store.getOperation(op.id))?.status, 'succeeded');
      assert.equal(
        await store.updateOperation({ ...op, status: 'failed', error: 'late', updatedAt: at(3) }, ['queued', 'succeeded']),
        true,
      );
      assert.equal((await store.getOperation(op.id))?.error, 'late');

      // A key binds the first operation (stored with it) and its payload hash; later binds get that back.
      const a = operation(bankId, `${bankId}-a`, 'running');
      const bound = await store.bindOperationKey(bankId, 'key-1', 'hash-a', a);
      assert.equal(bound.created, true);
      assert.equal((await store.getOperation(a.id))?.status, 'running', 'bound and stored in one step');
      const b = operation(bankId, `${bankId}-b`, 'running');
      const taken = await store.bindOperationKey(bankId, 'key-1', 'hash-b', b);
      assert.deepEqual([taken.created, taken.operation.id, taken.payloadHash], [false, a.id, 'hash-a']);
      assert.equal(await store.getOperation(b.id), null, 'a refused operation is not stored');
      assert.equal((await store.operationByKey(bankId, 'key-1'))?.id, a.id);
      assert.equal(await store.operationByKey(bankId, 'key-2'), null);
      // Once failed, a retry of the same payload binds the key to a new operation; another payload still may not.
      await store.updateOperation({ ...a, status: 'failed', error: 'boom' });
      assert.equal((await store.bindOperationKey(bankId, 'key-1', 'hash-b', b)).created, false);
      const retried = await store.bindOperationKey(bankId, 'key-1', 'hash-a', b);
      assert.deepEqual([retried.created, retried.operation.id], [true, b.id]);
      assert.equal((await store.operationByKey(bankId, 'key-1'))?.id, b.id);
      // The same key in another bank is another binding; both are found by the key alone.
      const other = await newBank('ops-2');
      assert.equal((await store.bindOperationKey(other, 'key-1', 'hash-a', operation(other, `${other}-c`, 'queued'))).created, true);
      assert.deepEqual(
        sorted(idsOf(await store.operationsByKey('key-1'))).filter((id) => id.startsWith(B('ops'))),
        sorted([b.id, `${other}-c`]),
      );
    });
  });
}
