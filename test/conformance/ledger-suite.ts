// The usage ledger conformance suite: what every UsageLedger must do with the calls it records (sums per
// operation, provider and model in a fixed order, a bank's own calls only, a half-open time range, canonical
// times, totals per UTC hour or day). The embedded ledger runs it in CI (sqlite-threads.test.ts); the Neo4j one
// against a real server when one is configured (server.test.ts). Bank ids are unique to the run, so a shared server's other entries change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { emptyTotals, type UsageEntry, type UsageLedger } from '../../src/llm/ledger.ts';
import { at, runId } from './fixtures.ts';

export interface LedgerHarness {
  /** The ledger; `prefix` starts every bank id the suite records under (for cleanup on a shared server). */
  open(prefix: string): Promise<{ ledger: UsageLedger; close(): Promise<void> }>;
}

export function ledgerConformance(label: string, harness: LedgerHarness): void {
  describe(`usage ledger conformance: ${label}`, () => {
    const prefix = `conf-${runId()}-`;
    let ledger: UsageLedger;
    let close: () => Promise<void>;

    before(async () => {
      ({ ledger, close } = await harness.open(prefix));
    });
    after(async () => {
      await close();
    });

    /** Costs are sums of binary fractions, so every adapter's float sum is exact. */
    function entry(bankId: string | null, o: Partial<UsageEntry> = {}): UsageEntry {
      return {
        operation: 'retain',
        bankId,
        provider: 'openai',
        model: 'gpt-4o-mini',
        inputTokens: 100,
        outputTokens: 20,
        cachedTokens: 0,
        latencyMs: 250,
        costUsd: 0.25,
        at: at(2),
        ok: true,
        error: null,
        ...o,
      };
    }

    test('a bank without calls: no groups, zero totals, no range', async () => {
      assert.deepEqual(await ledger.query({ bankId: `${prefix}empty` }), {
        bankId: `${prefix}empty`,
        from: null,
        to: null,
        groups: [],
        total: emptyTotals(),
      });
    });

    test('sums per operation, provider and model, ordered by operation then model then provider; failures counted', async () => {
      const b = `${prefix}sums`;
      const other = `${prefix}sums-other`;
      const entries = [
        entry(b),
        entry(b, { inputTokens: 50, outputTokens: 5, cachedTokens: 30, latencyMs: 100.4, costUsd: 0.125 }),
        entry(b, { ok: false, error: 'timeout', inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 30_000 }),
        entry(b, { operation: 'consolidation', provider: 'groq', model: 'llama-3.1-8b', costUsd: 0.5 }),
        entry(b, { operation: 'consolidation', provider: 'anthropic', model: 'llama-3.1-8b', latencyMs: 99.6 }),
        entry(b, { operation: 'consolidation', provider: 'openai', model: 'gpt-4o', outputTokens: 7 }),
        entry(b, { operation: 'threads', provider: 'openai', model: 'gpt-4o-mini', cachedTokens: 10 }),
        entry(b, { operation: 'reflect', provider: 'openai', model: 'gpt-4o-mini', ok: false, error: 'refused', costUsd: 0 }),
        entry(other, { costUsd: 64 }),
        entry(null, { costUsd: 128 }),
      ];
      for (const e of entries) await ledger.record(e);
      const report = await ledger.query({ bankId: b });
      assert.deepEqual(
        report.groups.map((g) => [g.operation, g.model, g.provider, g.calls, g.failures]),
        [
          ['consolidation', 'gpt-4o', 'openai', 1, 0],
          ['consolidation', 'llama-3.1-8b', 'anthropic', 1, 0],
          ['consolidation', 'llama-3.1-8b', 'groq', 1, 0],
          ['reflect', 'gpt-4o-mini', 'openai', 1, 1],
          ['retain', 'gpt-4o-mini', 'openai', 3, 1],
          ['threads', 'gpt-4o-mini', 'openai', 1, 0],
        ],
      );
      assert.deepEqual(report.groups[4], {
        operation: 'retain',
        provider: 'openai',
        model: 'gpt-4o-mini',
        calls: 3,
        failures: 1,
        inputTokens: 150,
        outputTokens: 25,
        cachedTokens: 30,
        costUsd: 0.375,
        latencyMs: 250 + 100 + 30_000,
      });
      assert.deepEqual(
        report.groups[1],
        {
          operation: 'consolidation',
          provider: 'anthropic',
          model: 'llama-3.1-8b',
          calls: 1,
          failures: 0,
          inputTokens: 100,
          outputTokens: 20,
          cachedTokens: 0,
          costUsd: 0.25,
          latencyMs: 100,
        },
        'latency is stored in whole milliseconds',
      );
      assert.deepEqual(report.total, {
        calls: 8,
        failures: 2,
        inputTokens: 650,
        outputTokens: 112,
        cachedTokens: 40,
        costUsd: 0.375 + 0.5 + 0.25 + 0.25 + 0.25,
        latencyMs: 250 + 100 + 30_000 + 250 + 100 + 250 + 250 + 250,
      });
      assert.equal((await ledger.query({ bankId: other })).total.costUsd, 64, 'each bank sums its own calls');
    });

    test('from is inclusive, to exclusive; times with offsets compare as the instants they are', async () => {
      const b = `${prefix}range`;
      await ledger.record(entry(b, { at: '2024-01-02T00:00:00Z', costUsd: 1 }));
      await ledger.record(entry(b, { at: '2024-01-03T02:00:00+02:00', costUsd: 2 })); // 2024-01-03T00:00Z
      await ledger.record(entry(b, { at: '2024-01-03T12:00:00.000Z', costUsd: 4 }));
      await ledger.record(entry(b, { at: '2024-01-04', costUsd: 8 }));
      const cost = async (from?: string, to?: string) => (await ledger.query({ bankId: b, from, to })).total.costUsd;
      assert.equal(await cost(), 15);
      assert.equal(await cost('2024-01-03'), 14);
      assert.equal(await cost(undefined, '2024-01-03T00:00:00Z'), 1);
      assert.equal(await cost('2024-01-03T01:00:00+01:00', '2024-01-04'), 6);
      assert.equal(await cost('2024-01-05'), 0);
      const report = await ledger.query({ bankId: b, from: '2024-01-03', to: '2024-01-04T01:00:00+01:00' });
      assert.equal(report.from, '2024-01-03T00:00:00.000Z');
      assert.equal(report.to, '2024-01-04T00:00:00.000Z');
      assert.deepEqual(
        report.groups.map((g) => g.calls),
        [2],
      );
      await assert.rejects(ledger.query({ bankId: b, from: '2024-02-30' }), /from '2024-02-30' is not a valid date/);
      await assert.rejects(ledger.record(entry(b, { at: 'yesterday' })), /at 'yesterday' is not a valid date/);
      assert.equal(await cost(), 15, 'the refused entry was not recorded');
    });

    test('per hour or day: a series of totals per bucket, operation, provider and model, in order; none without a bucket', async () => {
      const b = `${prefix}series`;
      await ledger.record(entry(b, { at: '2024-01-02T10:59:59.999Z', costUsd: 1 }));
      await ledger.record(entry(b, { at: '2024-01-02T12:30:00+02:00', costUsd: 2 })); // 10:30Z, the same hour
      await ledger.record(entry(b, { at: '2024-01-02T11:00:00Z', costUsd: 4, model: 'gpt-4o' }));
      await ledger.record(entry(b, { at: '2024-01-02T11:15:00Z', costUsd: 8, operation: 'consolidation' }));
      await ledger.record(entry(b, { at: '2024-01-03T00:00:00Z', costUsd: 16, ok: false, error: 'timeout' }));
      await ledger.record(entry(`${b}-other`, { at: '2024-01-02T10:00:00Z', costUsd: 32 }));
      assert.equal('series' in (await ledger.query({ bankId: b })), false, 'no bucket, no series');
      const hourly = await ledger.query({ bankId: b, bucket: 'hour' });
      assert.deepEqual(
        hourly.series?.map((p) => [p.start, p.operation, p.model, p.calls, p.failures, p.costUsd]),
        [
          ['2024-01-02T10:00:00.000Z', 'retain', 'gpt-4o-mini', 2, 0, 3],
          ['2024-01-02T11:00:00.000Z', 'consolidation', 'gpt-4o-mini', 1, 0, 8],
          ['2024-01-02T11:00:00.000Z', 'retain', 'gpt-4o', 1, 0, 4],
          ['2024-01-03T00:00:00.000Z', 'retain', 'gpt-4o-mini', 1, 1, 16],
        ],
      );
      assert.deepEqual(hourly.series?.[0], {
        start: '2024-01-02T10:00:00.000Z',
        operation: 'retain',
        provider: 'openai',
        model: 'gpt-4o-mini',
        calls: 2,
        failures: 0,
        inputTokens: 200,
        outputTokens: 40,
        cachedTokens: 0,
        costUsd: 3,
        latencyMs: 500,
      });
      assert.equal(hourly.total.costUsd, 31, 'the totals are as without a bucket');
      const daily = await ledger.query({ bankId: b, bucket: 'day', from: '2024-01-02T10:45:00Z' });
      assert.deepEqual(
        daily.series?.map((p) => [p.start, p.operation, p.model, p.calls, p.costUsd]),
        [
          ['2024-01-02T00:00:00.000Z', 'consolidation', 'gpt-4o-mini', 1, 8],
          ['2024-01-02T00:00:00.000Z', 'retain', 'gpt-4o', 1, 4],
          ['2024-01-02T00:00:00.000Z', 'retain', 'gpt-4o-mini', 1, 1],
          ['2024-01-03T00:00:00.000Z', 'retain', 'gpt-4o-mini', 1, 16],
        ],
        'within the range only',
      );
      assert.deepEqual((await ledger.query({ bankId: `${prefix}series-none`, bucket: 'day' })).series, []);
    });
  });
}
