// Store conformance, ConsolidationQueue role: claims under a lease, applying observations, dead letters.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { type Conformance, idsOf, observationWrite } from '../context.ts';
import { sleep } from '../fixtures.ts';

export function consolidationQueueConformance(ctx: Conformance): void {
  describe('ConsolidationQueue', () => {
    let store: MemoryStore;
    const { seeded } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('consolidation claims: never the same fact twice; an expired lease is taken over; a lost lease cannot apply', async () => {
      const { bankId, facts } = await seeded('claims');
      assert.ok((await store.banksWithBacklog()).includes(bankId));
      const [a, b] = await Promise.all([
        store.claimUnconsolidated(bankId, 'worker-a', 2, 60_000),
        store.claimUnconsolidated(bankId, 'worker-b', 2, 60_000),
      ]);
      const claimed = [...(a?.factIds ?? []), ...(b?.factIds ?? [])];
      assert.ok(claimed.length >= 2);
      assert.equal(new Set(claimed).size, claimed.length, 'no fact claimed twice');
      const holder = a ? 'worker-a' : 'worker-b';
      const first = (a ?? b)!;
      assert.deepEqual(first.factIds, [facts[0].id, facts[1].id], 'oldest first');
      await store.failClaim(bankId, holder, first.factIds, 'release', 99, 0);
      if (a && b) await store.failClaim(bankId, 'worker-b', b.factIds, 'release', 99, 0);

      const short = await store.claimUnconsolidated(bankId, 'worker-a', 4, 1);
      assert.deepEqual(short?.factIds, idsOf(facts));
      await sleep(20);
      const taken = await store.claimUnconsolidated(bankId, 'worker-b', 4, 60_000);
      assert.deepEqual(taken?.factIds, idsOf(facts), 'the expired lease is taken over');
      assert.equal(await store.claimUnconsolidated(bankId, 'worker-c', 4, 60_000), null, 'nothing left while worker-b holds them');
      await assert.rejects(
        store.applyObservations(observationWrite(bankId, { workerId: 'worker-a', consolidatedFactIds: idsOf(facts) })),
        /lease/,
      );
      await store.applyObservations(observationWrite(bankId, { workerId: 'worker-b', consolidatedFactIds: idsOf(facts) }));
      const backlog = await store.backlog(bankId);
      assert.deepEqual(
        { waiting: backlog.waiting, failed: backlog.failed, consolidated: backlog.consolidated },
        { waiting: 0, failed: 0, consolidated: 4 },
      );
      assert.equal(await store.hasWaiting(bankId), false, 'nothing waits once all are consolidated');
      assert.ok(!(await store.banksWithBacklog()).includes(bankId));
      assert.ok((await store.getFacts(bankId, [facts[0].id]))[0].consolidatedAt);
      assert.equal(await store.claimUnconsolidated(bankId, 'worker-a', 4, 60_000), null);
    });

    test('dead letters: after maxAttempts a fact leaves the queue until retried', async () => {
      const { bankId, facts } = await seeded('dead');
      const before = await store.backlog(bankId);
      assert.equal(before.waiting, 4);
      assert.equal(await store.hasWaiting(bankId), true);
      assert.equal(before.oldestWaitingAt, facts[0].createdAt);
      for (let attempt = 0; attempt < 2; attempt++) {
        const c = await store.claimUnconsolidated(bankId, 'w', 1, 60_000);
        assert.deepEqual(c?.factIds, [facts[0].id]);
        await store.failClaim(bankId, 'w', c!.factIds, `boom ${attempt}`, 2, 0);
      }
      const dead = await store.listDeadLetters(bankId);
      assert.deepEqual(
        dead.map((d) => [d.factId, d.error, d.attempts]),
        [[facts[0].id, 'boom 1', 2]],
      );
      assert.equal((await store.backlog(bankId)).failed, 1);
      assert.equal((await store.backlog(bankId)).waiting, 3);
      assert.deepEqual((await store.claimUnconsolidated(bankId, 'w', 1, 60_000))?.factIds, [facts[1].id], 'the dead letter is skipped');
      await store.failClaim(bankId, 'w', [facts[1].id], 'later', 5, 60_000);
      assert.equal(
        (await store.claimUnconsolidated(bankId, 'w', 1, 60_000))?.factIds[0],
        facts[2].id,
        'a failed fact waits for its retry time',
      );
      await store.failClaim(bankId, 'w', [facts[2].id], 'release', 5, 0);
      assert.equal(await store.retryDeadLetters(bankId), 1);
      assert.deepEqual(await store.listDeadLetters(bankId), []);
      assert.equal((await store.claimUnconsolidated(bankId, 'w', 1, 60_000))?.factIds[0], facts[0].id, 'retried, it is claimable again');
    });
  });
}
