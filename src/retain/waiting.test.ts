// A retain that cannot start because an earlier retain into the same bank holds the bank's write lease says so on its
// operation (progress.waiting) while it waits, and stops saying so once it runs: without it, such an operation showed
// "running" at 0 of N for as long as the other one took, like one that had hung.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { TEST_GLOVE_CACHE_FILE } from '../../test/support/embed.ts';
import { GatedStore } from '../../test/support/gated-store.ts';
import { until } from '../../test/support/poll.ts';
import { GloveEmbedder } from '../embed/glove.ts';
import type { Embedder } from '../embed/ports.ts';
import type { Operation } from '../core/index.ts';
import { Engine } from '../engine.ts';
import { BankWriteLeases } from './lease.ts';
import { OfflineExtractor } from './offline-extractor.ts';
import { retain, WAITING_FOR_LEASE } from './pipeline.ts';

let embedder: Embedder;
before(async () => {
  embedder = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
});

/** Runs `body` with bank "b" whose first async retain holds the bank's write lease, stopped at its write until the
 * store is released (at the end at the latest, before everything is closed). */
async function withHeldLease(body: (held: { store: GatedStore; engine: Engine; first: Operation }) => Promise<void>): Promise<void> {
  const store = new GatedStore({ file: ':memory:' });
  const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor() });
  try {
    await engine.createBank({ id: 'b' });
    const first = await engine.retain('b', { items: [{ content: 'Mia moved the staging cluster to Frankfurt in May.' }] }, { async: true });
    await until('the first retain to hold the lease, stopped at its write', () => store.waiting);
    await body({ store, engine, first: first.operation });
  } finally {
    store.release();
    await engine.close();
    await store.close();
  }
}

test("a retain waiting for its bank's write lease says so on its operation until it runs", () =>
  withHeldLease(async ({ store, engine, first }) => {
    await engine.createBank({ id: 'other' });
    const second = await engine.retain('b', { items: [{ content: 'Noah renamed the billing service to ledger.' }] }, { async: true });
    await until(
      'the second retain to say it waits for the lease',
      async () => (await engine.getOperation(second.operation.id, 'b')).progress.waiting === WAITING_FOR_LEASE,
    );
    const waiting = await engine.getOperation(second.operation.id, 'b');
    assert.equal(waiting.status, 'running');
    assert.deepEqual({ done: waiting.progress.done, total: waiting.progress.total }, { done: 0, total: 1 });
    // The holder itself does not wait, nor does a retain into another bank (which is written once the gate opens).
    assert.equal((await engine.getOperation(first.id, 'b')).progress.waiting, undefined);
    const elsewhere = await engine.retain('other', { items: [{ content: 'Ava tuned the cache.' }] }, { async: true });
    store.release();
    for (const [bank, op] of [
      ['b', first],
      ['b', second.operation],
      ['other', elsewhere.operation],
    ] as const) {
      await until(`${op.id} to succeed`, async () => (await engine.getOperation(op.id, bank)).status === 'succeeded');
      const done = await engine.getOperation(op.id, bank);
      assert.equal(done.progress.waiting, undefined, `${op.id} no longer waits`);
      assert.deepEqual({ done: done.progress.done, total: done.progress.total }, { done: 1, total: 1 });
    }
    // The list of the bank's operations reads the same field.
    const listed = await store.listOperations('b', { limit: 10, offset: 0 });
    assert.ok(listed.every((op) => op.progress.waiting === undefined));
  }));

test('an operation that ends while it waits (its bank deleted) no longer says it waits', () =>
  withHeldLease(async ({ store, engine }) => {
    const second = await engine.retain('b', { items: [{ content: 'Noah renamed the billing service to ledger.' }] }, { async: true });
    await until(
      'the second retain to wait',
      async () => (await engine.getOperation(second.operation.id, 'b')).progress.waiting !== undefined,
    );
    await engine.deleteBank('b');
    const failed = await store.getOperation(second.operation.id);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.progress.waiting, undefined);
  }));

test('a retain whose waiting cannot be recorded still runs', () =>
  withHeldLease(async ({ store, engine, first }) => {
    const bank = await store.getBank('b');
    assert.ok(bank);
    // A second retain into the bank (leases of its own, as another process has), told to record its waiting by a store
    // that is down.
    const told: Array<string | null> = [];
    const second = retain(
      { store, extractor: new OfflineExtractor(), embedder, leases: new BankWriteLeases(store) },
      bank,
      { items: [{ content: 'Noah renamed the billing service to ledger.' }] },
      {
        waiting: async (what) => {
          told.push(what);
          throw new Error('the store is down');
        },
      },
    );
    await until('the second retain to say it waits', () => told.length > 0);
    store.release();
    const result = await second;
    assert.equal(result.facts, 1);
    assert.deepEqual(told, [WAITING_FOR_LEASE, null]);
    await until('the first retain to succeed', async () => (await engine.getOperation(first.id, 'b')).status === 'succeeded');
  }));
