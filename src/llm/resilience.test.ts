// Timeouts, retries, Retry-After and the concurrency limit, through the real openai and groq-sdk clients
// talking to the scripted fake of the chat-completions protocol.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeLlmServer, reply, type FakeLlmServer } from '../../test/support/fake-llm-server.ts';
import { createOpenAiCompatibleProvider } from './openai-compatible.ts';
import { createGroqProvider } from './groq.ts';
import { backoffDelayMs, sharedLimiter, withResilience, type ResilienceOptions } from './resilience.ts';
import { LlmCallError } from './errors.ts';
import type { CompletionRequest } from './ports.ts';

let server: FakeLlmServer;
before(async () => {
  server = await startFakeLlmServer();
});
after(() => server.close());
beforeEach(() => assert.equal(server.pending, 0, 'previous test left scripted replies unused'));

const ask: CompletionRequest = { operation: 'retain', messages: [{ role: 'user', content: 'extract' }] };
const fast: ResilienceOptions = { backoffBaseMs: 5, backoffMaxMs: 20, timeoutMs: 5_000 };
const openai = (options: ResilienceOptions = {}) =>
  withResilience(createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm' }), { ...fast, ...options });

test('429 with Retry-After: the retry waits what the server asked (about 1 s), not the tiny backoff', async () => {
  const groq = withResilience(createGroqProvider({ apiKey: 'gsk', baseUrl: server.groqBaseUrl }), fast);
  server.script(reply.rateLimited(1), reply.text('ok'));
  const before = server.requests.length;
  const started = performance.now();
  const result = await groq.complete(ask);
  const waited = performance.now() - started;
  assert.equal(result.text, 'ok');
  assert.equal(server.requests.length - before, 2);
  assert.ok(waited >= 950, `waited only ${Math.round(waited)} ms`);
  assert.ok(waited < 2_500, `waited ${Math.round(waited)} ms`);
});

test('Retry-After is capped', async () => {
  const llm = openai({ retryAfterCapMs: 100 });
  server.script(reply.rateLimited(3600), reply.text('ok'));
  const started = performance.now();
  assert.equal((await llm.complete(ask)).text, 'ok');
  assert.ok(performance.now() - started < 1_000);
});

test('a hang times out, the connection is dropped, and the retry succeeds', async () => {
  const llm = openai({ timeoutMs: 250, retries: 1 });
  server.script(reply.hang(), reply.text('second time lucky'));
  const before = server.requests.length;
  const started = performance.now();
  const result = await llm.complete(ask);
  assert.equal(result.text, 'second time lucky');
  assert.ok(performance.now() - started >= 240);
  assert.equal(server.requests.length - before, 2);
  await sleep(20);
  assert.equal(server.inFlight, 0, 'the hung request was not aborted');
});

test('a hang with no retries left is a timeout error', async () => {
  const llm = openai({ timeoutMs: 150, retries: 0 });
  server.script(reply.hang());
  await assert.rejects(llm.complete(ask), (error: unknown) => {
    assert.ok(error instanceof LlmCallError);
    assert.equal(error.kind, 'timeout');
    assert.match(error.message, /150 ms/);
    return true;
  });
});

test('5xx and dropped connections are retried until the retries run out', async () => {
  const llm = openai({ retries: 2 });
  server.script(reply.error(500), reply.drop(), reply.text('fine'));
  assert.equal((await llm.complete(ask)).text, 'fine');

  server.script(reply.error(502), reply.error(503), reply.error(500));
  const before = server.requests.length;
  await assert.rejects(llm.complete(ask), (error: unknown) => {
    assert.ok(error instanceof LlmCallError);
    assert.equal(error.httpStatus, 500);
    assert.equal(error.attempts, 3);
    return true;
  });
  assert.equal(server.requests.length - before, 3);
});

test('other 4xx are not retried', async () => {
  const llm = openai({ retries: 3 });
  server.script(reply.error(422, 'bad messages'));
  const before = server.requests.length;
  await assert.rejects(llm.complete(ask), (error: unknown) => error instanceof LlmCallError && error.kind === 'client');
  assert.equal(server.requests.length - before, 1);
});

test('the concurrency limit holds: the server never sees more than N requests at once', async () => {
  const fresh = await startFakeLlmServer();
  try {
    fresh.script(...Array.from({ length: 6 }, (_, i) => reply.delayed(120, reply.text(`r${i}`))));
    const llm = withResilience(createOpenAiCompatibleProvider({ baseUrl: fresh.openaiBaseUrl, model: 'm' }), {
      ...fast,
      concurrency: 2,
    });
    const texts = await Promise.all(Array.from({ length: 6 }, () => llm.complete(ask).then((r) => r.text)));
    assert.deepEqual([...texts].sort(), ['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    assert.equal(fresh.maxInFlight, 2);
  } finally {
    await fresh.close();
  }
});

test('wrappers sharing a limiter share the limit', async () => {
  const fresh = await startFakeLlmServer();
  try {
    fresh.script(...Array.from({ length: 6 }, () => reply.delayed(80, reply.text('x'))));
    const limiter = sharedLimiter(`test ${fresh.url}`, 3);
    const a = withResilience(createOpenAiCompatibleProvider({ baseUrl: fresh.openaiBaseUrl, model: 'a' }), { ...fast, limiter });
    const b = withResilience(createGroqProvider({ apiKey: 'k', model: 'b', baseUrl: fresh.groqBaseUrl }), { ...fast, limiter });
    await Promise.all([a, b, a, b, a, b].map((llm) => llm.complete(ask)));
    assert.equal(fresh.maxInFlight, 3);
  } finally {
    await fresh.close();
  }
});

test('a caller abort stops the call and is not retried', async () => {
  const llm = openai({ retries: 3 });
  server.script(reply.hang());
  const before = server.requests.length;
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(llm.complete(ask, { signal: controller.signal }), (error: unknown) => {
    assert.ok(error instanceof LlmCallError);
    assert.equal(error.kind, 'aborted');
    return true;
  });
  assert.equal(server.requests.length - before, 1);
});

test('backoff grows exponentially, with jitter inside [step/2, step], and is capped', () => {
  assert.equal(
    backoffDelayMs(1, 100, 10_000, () => 0),
    50,
  );
  assert.equal(
    backoffDelayMs(1, 100, 10_000, () => 1),
    100,
  );
  assert.equal(
    backoffDelayMs(4, 100, 10_000, () => 1),
    800,
  );
  assert.equal(
    backoffDelayMs(20, 100, 1_000, () => 1),
    1_000,
  );
});
