// /metrics on a real server: the series move after a retain, a recall and a consolidation batch; the endpoint
// is guarded by the API key; bank labels are capped; LLM calls and thread memory runs are counted.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../../test/support/server.ts';
import type { ConsolidationStatus } from '../consolidate/index.ts';
import { Metrics } from './metrics.ts';

const KEY = 'metrics-key';

/** The value of one series (name plus its labels exactly as printed), or 0 when absent. */
function value(text: string, series: string): number {
  for (const line of text.split('\n')) if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  return 0;
}

describe('GET /metrics', () => {
  let server: TestServer;
  const auth = { authorization: `Bearer ${KEY}` };
  const scrape = async (): Promise<string> => {
    const r = await fetch(`${server.url}/metrics`, { headers: auth });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/plain/);
    return r.text();
  };
  before(async () => {
    server = await startServer({ env: { CAIRN_API_KEY: KEY } });
  });
  after(() => server.close());

  test('retain, recall and a consolidation batch move their series; requests are counted by route pattern', async () => {
    assert.equal((await server.call('POST', '/v1/banks', { id: 'm1' }, auth)).status, 201);
    const before = await scrape();
    const content = 'Maria moved to Porto in May 2024. She started a bakery there with her brother.';
    const retained = await server.call<{ result: { facts: number } }>(
      'POST',
      '/v1/banks/m1/memories',
      { items: [{ content, timestamp: '2024-06-01' }] },
      auth,
    );
    assert.equal(retained.status, 200);
    const afterRetain = await scrape();
    assert.equal(value(afterRetain, 'cairn_retain_items_total{bank="m1"}') - value(before, 'cairn_retain_items_total{bank="m1"}'), 1);
    assert.equal(value(afterRetain, 'cairn_retain_bytes_total{bank="m1"}'), Buffer.byteLength(content));
    assert.equal(value(afterRetain, 'cairn_retain_facts_total{bank="m1"}'), retained.body.result.facts);
    const waiting = value(afterRetain, 'cairn_consolidation_backlog{bank="m1"}');
    assert.ok(waiting >= 1, 'the new facts wait for consolidation');
    assert.ok(value(afterRetain, 'cairn_consolidation_oldest_waiting_seconds{bank="m1"}') >= 0);

    assert.equal((await server.call('POST', '/v1/banks/m1/recall', { query: 'Where did Maria move?' }, auth)).status, 200);
    const afterRecall = await scrape();
    const recalls = (t: string) => value(t, 'cairn_recall_duration_seconds_count{stage="total"}');
    assert.equal(recalls(afterRecall) - recalls(afterRetain), 1);
    for (const arm of ['semantic', 'keyword', 'graph', 'temporal', 'passage'])
      assert.ok(value(afterRecall, `cairn_recall_arm_duration_seconds_count{arm="${arm}"}`) >= 1, arm);
    assert.ok(
      value(afterRecall, 'cairn_http_requests_total{method="POST",route="/v1/banks/:bank/recall",status="200"}') >= 1,
      'the recall request counted under its route pattern, not its path',
    );
    assert.ok(!afterRecall.includes('route="/v1/banks/m1/'), 'no raw path as a label');

    assert.equal((await server.call('POST', '/v1/banks/m1/consolidate?wait=true', undefined, auth)).status, 200);
    const afterBatch = await scrape();
    assert.equal(value(afterBatch, 'cairn_consolidation_backlog{bank="m1"}'), 0);
    assert.ok(value(afterBatch, 'cairn_consolidated_facts{bank="m1"}') >= waiting);
    assert.ok(value(afterBatch, 'cairn_observations{bank="m1"}') >= 1);
    assert.ok(value(afterBatch, 'cairn_process_cpu_seconds_total') > 0, 'process metrics');
  });

  test('the Grafana dashboard queries only series this server exposes', async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../ops/grafana/cairn.json', import.meta.url), 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const exposed = new Set([...(await scrape()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const used = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => [...t.expr.matchAll(/\bcairn_[a-z0-9_]+/g)].map((m) => m[0])));
    assert.ok(used.length >= 16);
    const missing = used.filter((name) => !exposed.has(name) && !exposed.has(name.replace(/_(bucket|sum|count)$/, '')));
    assert.deepEqual(missing, [], 'dashboard series that /metrics does not expose');
  });

  test('a deleted bank leaves no consolidation series; /metrics needs the key', async () => {
    await server.call('POST', '/v1/banks', { id: 'gone' }, auth);
    assert.match(await scrape(), /cairn_consolidation_backlog\{bank="gone"\}/);
    await server.call('DELETE', '/v1/banks/gone', undefined, auth);
    assert.doesNotMatch(await scrape(), /bank="gone"/);
    assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
    const text = await scrape();
    assert.ok(
      value(text, 'cairn_http_requests_total{method="GET",route="/metrics",status="401"}') >= 1,
      'refused requests are counted too',
    );
  });
});

test('bank labels stop at maxBanks; LLM calls and thread memory runs are counted', async () => {
  const metrics = new Metrics({ maxBanks: 2, processMetrics: false });
  const result = { documents: 1, documentsUnchanged: 0, chunksProcessed: 1, chunksRemoved: 0, facts: 2, factIds: [], entities: 0 };
  for (const bank of ['a', 'b', 'c', 'd', 'a']) metrics.observeRetain(bank, result, { items: [{ content: 'xy' }] });
  const banks = await metrics.text();
  assert.equal(value(banks, 'cairn_retain_items_total{bank="a"}'), 2);
  assert.equal(value(banks, 'cairn_retain_items_total{bank="b"}'), 1);
  assert.equal(value(banks, 'cairn_retain_items_total{bank="(other)"}'), 2);
  assert.doesNotMatch(banks, /bank="c"/);
  // A deleted bank's series go and its place is free for the next bank.
  metrics.forgetBank('b');
  metrics.observeRetain('e', result, { items: [{ content: 'xy' }] });
  const after = await metrics.text();
  assert.doesNotMatch(after, /bank="b"/);
  assert.equal(value(after, 'cairn_retain_items_total{bank="e"}'), 1);
  // Consolidation gauges: banks without a label of their own add up under (other).
  const status = (bankId: string, backlog: number, age: number) =>
    ({ bankId, backlog, oldestWaitingAgeSeconds: age, failed: 1, consolidated: 2, observations: 3 }) as unknown as ConsolidationStatus;
  metrics.readConsolidation(async () => [status('a', 5, 10), status('x', 7, 30), status('y', 1, 20)]);
  const gauges = await metrics.text();
  assert.equal(value(gauges, 'cairn_consolidation_backlog{bank="a"}'), 5);
  assert.equal(value(gauges, 'cairn_consolidation_backlog{bank="(other)"}'), 8);
  assert.equal(value(gauges, 'cairn_consolidation_oldest_waiting_seconds{bank="(other)"}'), 30);
  assert.equal(value(gauges, 'cairn_observations{bank="(other)"}'), 6);

  const call = { bankId: 'a', provider: 'groq', model: 'm', costUsd: 0.01, latencyMs: 250, at: new Date().toISOString(), cachedTokens: 0 };
  metrics.observeLlm({ ...call, operation: 'reflect', inputTokens: 100, outputTokens: 20, ok: true, error: null });
  metrics.observeLlm({ ...call, operation: 'reflect', inputTokens: 50, outputTokens: 0, ok: false, error: 'rate limited' });
  const thread = { operation: null, cycleId: 'c', bankId: 'a', recordId: 'r', threadId: 't', at: '', inputTokens: 0 };
  for (const type of ['observation.start', 'observation.end', 'reflection.failed'] as const)
    metrics.observeThreadEvent({ ...thread, id: 1, type } as Parameters<Metrics['observeThreadEvent']>[0]);
  const text = await metrics.text();
  assert.equal(value(text, 'cairn_llm_calls_total{provider="groq",operation="reflect",outcome="ok"}'), 1);
  assert.equal(value(text, 'cairn_llm_calls_total{provider="groq",operation="reflect",outcome="error"}'), 1);
  assert.equal(value(text, 'cairn_llm_tokens_total{provider="groq",operation="reflect",kind="input"}'), 150);
  assert.equal(value(text, 'cairn_llm_cost_usd_total{provider="groq",operation="reflect"}'), 0.02);
  assert.equal(value(text, 'cairn_thread_memory_runs_total{kind="observation",outcome="end"}'), 1);
  assert.equal(value(text, 'cairn_thread_memory_runs_total{kind="reflection",outcome="failed"}'), 1);
});
