// Consolidation workers on one store: two workers (two store connections, as two processes would have) never do
// the same work twice; a stalled worker's lease is taken over when it expires and its late write is refused; facts
// that keep failing go to the dead-letter list with their error, visible and retryable through the API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { OfflineConsolidator } from '../src/consolidate/offline.ts';
import { consolidationStatus } from '../src/consolidate/status.ts';
import { ConsolidationWorker } from '../src/consolidate/worker.ts';
import type { Embedder } from '../src/embed/ports.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';

const NAMES = ['Ava', 'Ben', 'Chloe', 'Dev', 'Eli', 'Farah', 'Gus', 'Hana'];
const HOBBIES = [
  'restores old sailboats',
  'grows rare orchids',
  'trains for mountain marathons',
  'collects vinyl jazz records',
  'builds wooden puzzles',
];

/** Distinct sentences about who does what (up to 40), so facts group into a handful of observations. */
const hobbyItems = (n: number): Array<{ content: string; timestamp: string }> =>
  Array.from({ length: n }, (_, i) => ({
    content: `${NAMES[i % NAMES.length]} ${HOBBIES[(i * 3) % HOBBIES.length]}.`,
    timestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
  }));

/** Test data: a deterministic embedder whose id differs from the bank's. */
class ForeignEmbedder implements Embedder {
  readonly id = 'test:foreign-hash';
  readonly dimensions = 16;
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const bytes = createHash('sha256').update(t).digest();
      const v = Float32Array.from(bytes.subarray(0, 16), (b) => b - 127.5);
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    });
  }
}

/** Test data: a consolidator that fails every fact (a poisoned batch). */
class PoisonedConsolidator extends OfflineConsolidator {
  override async consolidate(): Promise<never> {
    throw new Error('poisoned fact: the consolidator refuses it');
  }
}

function revisionFactIds(t: TestEngine, bank: string): string[] {
  const rows = t.store.db.prepare('SELECT fact_ids FROM observation_revisions WHERE bank_id = ?').all(bank) as Array<{ fact_ids: string }>;
  return rows.flatMap((r) => JSON.parse(r.fact_ids) as string[]);
}

describe('consolidation workers', () => {
  let a: TestEngine;
  let b: TestEngine;
  before(async () => {
    a = await openEngine({ attach: { worker: { workerId: 'worker-a', claimSize: 3, pollMs: 10 } } });
    b = await openEngine({ dataDir: a.dataDir, attach: { worker: { workerId: 'worker-b', claimSize: 3, pollMs: 10 } } });
  });
  after(async () => {
    await b.stop();
    await a.close();
  });

  test('two workers on one store consolidate every fact exactly once', async () => {
    const banks = { one: 40, two: 30 };
    for (const [bank, n] of Object.entries(banks)) {
      await a.engine.createBank({ id: bank });
      await a.engine.retain(bank, { items: hobbyItems(n) });
    }
    a.worker.start();
    b.worker.start();
    const deadline = Date.now() + 30_000;
    while ((await a.store.backlog('one')).waiting + (await a.store.backlog('two')).waiting > 0) {
      assert.ok(Date.now() < deadline, 'drained in time');
      await sleep(20);
    }
    await Promise.all([a.worker.stop(), b.worker.stop()]);
    for (const [bank, n] of Object.entries(banks)) {
      const all = (await a.store.listFacts(bank, { kinds: ['world'], includeSuperseded: true, limit: 1000, offset: 0 })).facts;
      assert.equal(all.length, n);
      assert.ok(
        all.every((f) => f.consolidatedAt !== null),
        'every fact consolidated',
      );
      const cited = revisionFactIds(a, bank);
      assert.equal(cited.length, n, 'one decision per fact');
      assert.equal(new Set(cited).size, n, 'no fact decided twice');
      const evidence = a.store.db.prepare('SELECT count(*) AS n FROM evidence WHERE bank_id = ?').get(bank) as { n: number };
      assert.equal(evidence.n, n, 'one evidence link per fact');
      const texts = (await a.store.listFacts(bank, { kinds: ['observation'], limit: 1000, offset: 0 })).facts.map((o) => o.text);
      assert.equal(new Set(texts).size, texts.length, 'no duplicate observation');
      const done = a.worker.meter.snapshot(bank).facts + b.worker.meter.snapshot(bank).facts;
      assert.equal(done, n, 'the workers together applied each fact once');
    }
    const total = ['one', 'two'].map((bank) => [a.worker.meter.snapshot(bank).facts, b.worker.meter.snapshot(bank).facts]);
    assert.ok(total.flat().filter((x) => x > 0).length >= 2, `work was shared: ${JSON.stringify(total)}`);
  });

  test("a stalled worker's lease is taken over once it expires, and its late write is refused", async () => {
    await a.engine.createBank({ id: 'stall' });
    await a.engine.retain('stall', { items: hobbyItems(5) });
    const stalled = await a.store.claimUnconsolidated('stall', 'stalled-worker', 10, 300);
    assert.ok(stalled && stalled.factIds.length === 5);
    assert.equal((await b.worker.drain('stall')).consolidated, 0, 'the live lease keeps others out of the bank');
    await sleep(350);
    assert.equal((await b.worker.drain('stall')).consolidated, 5, 'the expired lease is taken over');
    await assert.rejects(
      a.store.applyObservations({
        bankId: 'stall',
        observations: [],
        vectors: [],
        embedder: a.engine.embedderId,
        evidence: [],
        revisions: [],
        supersede: [],
        removeObservationIds: [],
        consolidatedFactIds: stalled.factIds,
        workerId: 'stalled-worker',
      }),
      /lost its lease/,
    );
    assert.equal(new Set(revisionFactIds(a, 'stall')).size, 5);
  });

  test('a claimed fact deleted in the middle of its batch does not hold up the rest of the batch', async () => {
    await a.engine.createBank({ id: 'midway' });
    const r = await a.engine.retain('midway', { items: hobbyItems(4) });
    let deleted: string | null = null;
    const embedder = a.embedder;
    const worker = new ConsolidationWorker(
      { store: a.store, embedder, consolidator: new OfflineConsolidator(embedder) },
      {
        workerId: 'deleter',
        beforeApply: async (_bank, claim) => {
          if (deleted) return;
          deleted = claim.factIds[0];
          await a.engine.memories.deleteFact('midway', deleted, 'deleted while claimed');
        },
      },
    );
    const report = await worker.drain('midway');
    assert.equal(report.consolidated, 3);
    assert.deepEqual(await a.store.backlog('midway'), { waiting: 0, oldestWaitingAt: null, failed: 0, consolidated: 3 });
    assert.ok(!revisionFactIds(a, 'midway').includes(deleted!));
    assert.equal(new Set(revisionFactIds(a, 'midway')).size, 3);
    assert.equal(r.result!.factIds.length, 4);
  });

  test('facts that keep failing go to the dead-letter list, visible and retryable through the API', async () => {
    await a.engine.createBank({ id: 'poison' });
    const r = await a.engine.retain('poison', { items: hobbyItems(3) });
    const failing = new ConsolidationWorker(
      { store: a.store, embedder: a.embedder, consolidator: new PoisonedConsolidator(a.embedder) },
      { workerId: 'failing', maxAttempts: 2, backoffMs: 0 },
    );
    const report = await failing.drain('poison');
    assert.equal(report.consolidated, 0);
    assert.ok(report.failed >= 3);
    const dead = await a.call<{ deadLetters: Array<{ factId: string; error: string; attempts: number }> }>(
      'GET',
      '/v1/banks/poison/consolidation/dead-letters',
    );
    assert.equal(dead.status, 200);
    assert.deepEqual(dead.body.deadLetters.map((d) => d.factId).sort(), [...r.result!.factIds].sort());
    assert.ok(
      dead.body.deadLetters.every((d) => d.attempts === 2 && /poisoned/.test(d.error)),
      JSON.stringify(dead.body.deadLetters[0]),
    );
    const status = await a.call<{ backlog: number; failed: number }>('GET', '/v1/banks/poison/consolidation');
    assert.deepEqual([status.body.backlog, status.body.failed], [0, 3]);

    const retry = await a.call<{ retried: number }>('POST', '/v1/banks/poison/consolidation/dead-letters/retry', {
      factIds: [r.result!.factIds[0]],
    });
    assert.equal(retry.body.retried, 1);
    const rest = await a.call<{ retried: number }>('POST', '/v1/banks/poison/consolidation/dead-letters/retry');
    assert.equal(rest.body.retried, 2);
    assert.equal((await a.worker.drain('poison')).consolidated, 3);
    const after = await a.call<{ backlog: number; failed: number; consolidated: number }>('GET', '/v1/banks/poison/consolidation');
    assert.deepEqual([after.body.backlog, after.body.failed, after.body.consolidated], [0, 0, 3]);
  });

  test("a worker whose embedder is not the bank's claims nothing there: the facts wait, and the status says why", async () => {
    await a.engine.createBank({ id: 'other-vectors' });
    const r = await a.engine.retain('other-vectors', { items: hobbyItems(4) });
    const foreign = new ForeignEmbedder();
    const stranger = new ConsolidationWorker(
      { store: a.store, embedder: foreign, consolidator: new OfflineConsolidator(foreign) },
      { workerId: 'stranger', maxAttempts: 2, backoffMs: 0 },
    );
    const report = await stranger.drain('other-vectors');
    assert.deepEqual([report.batches, report.consolidated, report.failed], [0, 0, 0]);
    assert.match(
      stranger.lastErrors.get('other-vectors')?.error ?? '',
      /holds vectors of 'glove:.*' but this process embeds with 'test:foreign-hash'/,
    );
    const backlog = await a.store.backlog('other-vectors');
    assert.deepEqual(
      [backlog.waiting, backlog.failed, backlog.consolidated],
      [r.result!.factIds.length, 0, 0],
      'nothing claimed, retried or dead-lettered',
    );
    const status = await consolidationStatus(a.store, stranger, await a.engine.requireBank('other-vectors'));
    assert.match(status.waiting.reason ?? '', /^4 facts wait: bank 'other-vectors' holds vectors of .* 'cairn reembed other-vectors'/);
    // The bank's own embedder consolidates every fact afterwards.
    assert.equal((await a.worker.drain('other-vectors')).consolidated, r.result!.factIds.length);
  });
});
