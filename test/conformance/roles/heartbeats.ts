// Store conformance, Heartbeats role: liveness of the processes that hold claims.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { type Conformance, idsOf, observationWrite } from '../context.ts';
import { at } from '../fixtures.ts';

export function heartbeatsConformance(ctx: Conformance): void {
  describe('Heartbeats', () => {
    let store: MemoryStore;
    const { seeded } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test("heartbeats: a claim lapses with its holder's heartbeat, before its lease; a retired holder's claims are free", async () => {
      const { bankId, facts } = await seeded('liveness');
      const [alive, other] = [`${bankId}-w1`, `${bankId}-w2`];
      const beat = (id: string, aliveMs: number) =>
        store.beat({
          id,
          role: 'worker',
          host: 'conformance',
          pid: 7,
          startedAt: at(1),
          beatAt: new Date().toISOString(),
          aliveUntil: new Date(Date.now() + aliveMs).toISOString(),
        });
      await beat(alive, 60_000);
      const held = await store.claimUnconsolidated(bankId, alive, 2, 60_000);
      assert.deepEqual(held?.factIds, [facts[0].id, facts[1].id]);
      assert.equal(await store.claimUnconsolidated(bankId, other, 2, 60_000), null, 'a live holder keeps the bank');
      const detail = await store.queueDetail(bankId);
      assert.deepEqual(detail.claims, [{ workerId: alive, facts: 2, leaseUntil: held!.leaseUntil }]);
      assert.equal(detail.ready, 2, 'the unclaimed facts are ready (for the holder)');
      assert.deepEqual(detail.retrying, { facts: 0, nextAttemptAt: null, lastError: null });

      await beat(alive, -1000);
      assert.equal((await store.queueDetail(bankId)).ready, 4, "a silent holder's facts are ready again, its lease running or not");
      const taken = await store.claimUnconsolidated(bankId, other, 4, 60_000);
      assert.deepEqual(taken?.factIds, idsOf(facts), 'taken over long before the lease ends');
      await assert.rejects(
        store.applyObservations(observationWrite(bankId, { workerId: alive, consolidatedFactIds: [facts[0].id] })),
        /lease/,
      );

      await beat(other, 60_000);
      const mine = (await store.heartbeats()).find((h) => h.id === other);
      assert.equal(mine?.role, 'worker');
      assert.deepEqual([mine?.host, mine?.pid, mine?.startedAt], ['conformance', 7, at(1)]);
      assert.equal(await store.retireHeartbeat(other, '2000-01-01T00:00:00.000Z'), false, 'a holder that beat since is kept');
      assert.equal((await store.queueDetail(bankId)).claims.length, 1);
      assert.equal(await store.retireHeartbeat(other, mine!.beatAt), true);
      assert.ok(!(await store.heartbeats()).some((h) => h.id === other));
      assert.deepEqual((await store.queueDetail(bankId)).claims, [], "a retired holder's claims are released");
      assert.equal((await store.queueDetail(bankId)).ready, 4);

      const again = await store.claimUnconsolidated(bankId, other, 1, 60_000);
      await store.failClaim(bankId, other, again!.factIds, 'boom', 5, 60_000);
      const retrying = await store.queueDetail(bankId);
      assert.equal(retrying.ready, 3);
      assert.equal(retrying.retrying.facts, 1);
      assert.equal(retrying.retrying.lastError, 'boom');
      assert.ok(retrying.retrying.nextAttemptAt! > new Date().toISOString(), 'with the time of its next attempt');
      assert.equal(await store.retireHeartbeat(alive, null), true);
    });
  });
}
