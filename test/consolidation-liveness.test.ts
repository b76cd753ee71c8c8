// POST /consolidate tells the truth: it answers 202 {started: true} only once a batch was claimed, and otherwise
// 200 {started: false} with the reason the status gives (nothing waits, another live worker holds the bank, the
// facts wait for a retry after an error). A holder that goes silent is presumed dead and taken over at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConsolidationStatus } from '../src/consolidate/status.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';

type Started = { started: boolean; reason?: string; status: ConsolidationStatus };

describe('POST /consolidate says whether a run could start', () => {
  let t: TestEngine;
  before(async () => {
    t = await openEngine({ attach: { worker: { workerId: 'api' } } });
  });
  after(() => t.close());

  const beat = (id: string, aliveMs: number) =>
    t.store.beat({
      id,
      role: 'worker',
      host: 'another-host',
      pid: 4242,
      startedAt: '2024-01-01T00:00:00.000Z',
      beatAt: new Date().toISOString(),
      aliveUntil: new Date(Date.now() + aliveMs).toISOString(),
    });

  test('nothing waiting: not started, and it says so', async () => {
    await t.engine.createBank({ id: 'empty' });
    const r = await t.call<Started>('POST', '/v1/banks/empty/consolidate');
    assert.equal(r.status, 200);
    assert.equal(r.body.started, false);
    assert.equal(r.body.reason, 'nothing waits to be consolidated');
  });

  test('another live worker holds the bank: not started, naming it; once it goes silent, a run takes its claim over', async () => {
    await t.engine.createBank({ id: 'held' });
    await t.engine.retain('held', { items: [{ content: 'Nora plants tomatoes in her garden. Nora waters the tomatoes every morning.' }] });
    await beat('elsewhere', 60_000);
    const claim = await t.store.claimUnconsolidated('held', 'elsewhere', 1, 60_000);
    assert.equal(claim?.factIds.length, 1);

    const r = await t.call<Started>('POST', '/v1/banks/held/consolidate');
    assert.equal(r.status, 200);
    assert.equal(r.body.started, false);
    assert.match(r.body.reason ?? '', /1 fact claimed by worker elsewhere \(last heartbeat \d+ s ago, lease until \S+\)/);
    assert.match(r.body.reason ?? '', /1 fact wait for worker elsewhere to finish its batch/);
    assert.deepEqual(
      r.body.status.waiting.claims.map((c) => [c.workerId, c.facts, c.holder]),
      [['elsewhere', 1, 'alive']],
    );
    assert.equal(r.body.status.backlog, 2);

    await beat('elsewhere', -1_000);
    const silent = (await t.call<ConsolidationStatus>('GET', '/v1/banks/held/consolidation')).body;
    assert.deepEqual(
      silent.waiting.claims.map((c) => c.holder),
      ['dead'],
    );
    assert.match(silent.waiting.claims[0].gone ?? '', /no heartbeat for \d+ s/);
    assert.equal(silent.waiting.ready, 2, "the silent holder's fact is ready again");
    const run = await t.call<Started>('POST', '/v1/banks/held/consolidate');
    assert.deepEqual([run.status, run.body.started], [202, true]);
    await t.worker.drain('held');
    const done = (await t.call<ConsolidationStatus>('GET', '/v1/banks/held/consolidation')).body;
    assert.deepEqual([done.backlog, done.consolidated, done.waiting.reason], [0, 2, null]);
  });

  test('the facts wait for a retry after an error: not started, with the time and the error', async () => {
    await t.engine.createBank({ id: 'retry' });
    await t.engine.retain('retry', { items: [{ content: 'Omar repairs bicycles in Leeds.' }] });
    const claim = await t.store.claimUnconsolidated('retry', 'api', 10, 60_000);
    assert.ok(claim);
    await t.store.failClaim('retry', 'api', claim.factIds, 'the model timed out', 5, 60_000);

    const r = await t.call<Started>('POST', '/v1/banks/retry/consolidate');
    assert.equal(r.status, 200);
    assert.equal(r.body.started, false);
    assert.match(r.body.reason ?? '', /wait for a retry after an error \(next at \S+; error: the model timed out\)/);
    assert.equal(r.body.status.waiting.retrying.facts, claim.factIds.length);
    assert.equal(r.body.status.waiting.ready, 0);
  });
});
