// Spans with an in-memory exporter: retain's stages nest under the retain, recall's arms and stages under the
// recall, a consolidation batch gets one span (a poll that claims nothing gets none), and a failure marks its span.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { startServer, type TestServer } from '../../test/support/server.ts';
import { startTracing, traced, type Tracing } from './tracing.ts';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let server: TestServer;

before(async () => {
  tracing = startTracing({ serviceName: 'cairn-test', exporter, batch: false });
  server = await startServer();
});
after(async () => {
  await server.close();
  await tracing.shutdown();
});

const named = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

test('retain, recall and a consolidation batch leave nested spans', async () => {
  await server.call('POST', '/v1/banks', { id: 't' });
  exporter.reset();
  const r = await server.call('POST', '/v1/banks/t/memories', {
    items: [{ content: 'Nora joined the climbing club in Leeds. She climbs every Tuesday.', timestamp: '2024-02-01' }],
  });
  assert.equal(r.status, 200);
  const [retain] = named('retain');
  assert.ok(retain, 'a retain span');
  assert.equal(retain.attributes['cairn.bank'], 't');
  assert.ok(Number(retain.attributes['cairn.facts']) >= 1);
  for (const stage of ['retain.extract', 'retain.embed', 'retain.links', 'retain.write']) {
    const spans = named(stage);
    assert.ok(spans.length >= 1, stage);
    assert.ok(
      spans.every((s) => s.spanContext().traceId === retain.spanContext().traceId),
      `${stage} is in the retain's trace`,
    );
  }
  assert.equal(parentOf(named('retain.write')[0]), retain.spanContext().spanId);

  assert.equal((await server.call('POST', '/v1/banks/t/recall', { query: 'What does Nora do on Tuesdays?' })).status, 200);
  const [recall] = named('recall');
  assert.ok(recall);
  for (const child of [
    'recall.arm.semantic',
    'recall.arm.keyword',
    'recall.arm.graph',
    'recall.arm.temporal',
    'recall.arm.passage',
    'recall.fusion',
    'recall.rerank',
    'recall.mmr',
  ]) {
    const [span] = named(child);
    assert.ok(span, child);
    assert.equal(parentOf(span), recall.spanContext().spanId, `${child} under the recall`);
  }

  const before = named('consolidation.batch').length;
  assert.equal((await server.call('POST', '/v1/banks/t/consolidate?wait=true')).status, 200);
  const batches = named('consolidation.batch');
  assert.ok(batches.length > before, 'a batch span');
  assert.ok(Number(batches.at(-1)!.attributes['cairn.consolidated']) >= 1);
  const quiet = named('consolidation.batch').length;
  await server.call('POST', '/v1/banks/t/consolidate?wait=true');
  assert.equal(named('consolidation.batch').length, quiet, 'nothing claimed, no span');
});

test('a failing step marks its span as failed and still throws', async () => {
  exporter.reset();
  await assert.rejects(
    traced('step', {}, async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  const [span] = named('step');
  assert.equal(span.status.code, 2); // SpanStatusCode.ERROR
  assert.equal(span.status.message, 'boom');
});
