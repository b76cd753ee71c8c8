// Traces over the wire: with OTEL_EXPORTER_OTLP_ENDPOINT set, Cairn sends OTLP/HTTP JSON to that collector (here a
// local HTTP server that records what it receives, not a real collector). One retain through the model (a SCRIPTED
// FAKE of the OpenAI wire protocol) and one recall give a trace per request: the HTTP span, the retain or recall,
// their stages and the LLM call, nested; the same call moves the LLM metrics.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { reply, startFakeLlmServer } from './support/fake-llm-server.ts';
import { startServer } from './support/server.ts';

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}
interface OtlpBody {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

test('OTLP/HTTP export: nested spans from the HTTP request down to the LLM call', async () => {
  const bodies: OtlpBody[] = [];
  const paths: string[] = [];
  const collector = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']} ${req.headers['x-collector-key']}`);
      bodies.push(JSON.parse(text) as OtlpBody);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const llm = await startFakeLlmServer();
  const server = await startServer({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=secret',
      OTEL_SERVICE_NAME: 'cairn-otlp-test',
      ...llm.cairnEnv,
    },
  });
  try {
    await server.call('POST', '/v1/banks', { id: 'otel' });
    llm.script(
      reply.json(
        {
          facts: [
            {
              what: 'Ines bought a red bicycle.',
              kind: 'world',
              quote: 'bought a red bicycle',
              entities: [{ name: 'Ines', type: 'person' }],
            },
          ],
        },
        { prompt: 80, completion: 20 },
      ),
    );
    const retained = await server.call('POST', '/v1/banks/otel/memories', { items: [{ content: 'Ines bought a red bicycle.' }] });
    assert.equal(retained.status, 200, JSON.stringify(retained.body));
    // The caller's W3C traceparent: the recall continues its trace.
    const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
    assert.equal((await server.call('POST', '/v1/banks/otel/recall', { query: 'What did Ines buy?' }, { traceparent })).status, 200);
    const metrics = await fetch(`${server.url}/metrics`).then((r) => r.text());
    assert.match(metrics, /cairn_llm_calls_total\{provider="[^"]+",operation="retain",outcome="ok"\} 1/);
    assert.match(metrics, /cairn_llm_tokens_total\{provider="[^"]+",operation="retain",kind="input"\} 80/);
    // A request no route takes: its span keeps the bare method, as /metrics counts it "unmatched".
    assert.equal((await fetch(`${server.url}/v1/nowhere/at-all`)).status, 404);
  } finally {
    await server.close(); // flushes the batched spans
    await llm.close();
    await new Promise<void>((resolve) => collector.close(() => resolve()));
  }
  assert.ok(paths.length >= 1, 'the collector received spans');
  assert.ok(
    paths.every((p) => p.startsWith('POST /v1/traces application/json secret')),
    paths.join('\n'),
  );
  const service = bodies[0].resourceSpans[0].resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
  assert.equal(service, 'cairn-otlp-test');
  const spans = bodies.flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
  const one = (name: string): OtlpSpan => {
    const found = spans.filter((s) => s.name === name);
    assert.equal(found.length, 1, `one ${name} span among ${spans.map((s) => s.name).join(', ')}`);
    return found[0];
  };
  const request = one('POST /v1/banks/:bank/memories');
  const retain = one('retain');
  const llmCall = one('llm.retain');
  assert.equal(retain.parentSpanId, request.spanId);
  assert.equal(llmCall.traceId, request.traceId, 'the LLM call is in the request trace');
  assert.equal(one('retain.extract').traceId, request.traceId);
  const recallRequest = one('POST /v1/banks/:bank/recall');
  assert.equal(recallRequest.traceId, CALLER_TRACE, "the caller's trace continues");
  assert.equal(recallRequest.parentSpanId, CALLER_SPAN);
  assert.equal(one('recall').parentSpanId, recallRequest.spanId);
  assert.equal(one('recall.arm.semantic').traceId, recallRequest.traceId);
  one('GET');
  assert.ok(!spans.some((s) => s.name.endsWith('*')), 'no span named by a middleware pattern');
});

test('a collector that is down costs a warning, not the shutdown', async () => {
  const server = await startServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' } });
  await server.call('POST', '/v1/banks', { id: 'down' });
  assert.equal((await server.call('POST', '/v1/banks/down/recall', { query: 'anything?' })).status, 200);
  await server.close(); // resolves: the unsent spans are reported in the log, not thrown
});
