// The Groq adapter on the real groq-sdk client, against the scripted fake of the chat-completions protocol.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, reply, type FakeLlmServer } from '../../test/support/fake-llm-server.ts';
import { createGroqProvider } from './groq.ts';
import { LlmCallError } from './errors.ts';
import type { CompletionRequest } from './ports.ts';

let server: FakeLlmServer;
before(async () => {
  server = await startFakeLlmServer();
});
after(() => server.close());
beforeEach(() => assert.equal(server.pending, 0, 'previous test left scripted replies unused'));

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const ask = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  operation: 'reflect',
  messages: [{ role: 'user', content: 'What is the answer?' }],
  jsonSchema: { name: 'answer', schema },
  ...extra,
});

test('sends json_schema to models that have it, on the Groq path, with the key and the token cap', async () => {
  const groq = createGroqProvider({ apiKey: 'gsk_test', model: 'openai/gpt-oss-120b', baseUrl: server.groqBaseUrl });
  server.script(reply.json({ answer: '42' }, { prompt: 50, completion: 7, cached: 20 }));
  const before = server.requests.length;
  const result = await groq.complete(ask({ maxTokens: 300, temperature: 0 }));

  const sent = server.requests[before];
  assert.equal(sent.path, '/openai/v1/chat/completions');
  assert.equal(sent.headers.authorization, 'Bearer gsk_test');
  assert.equal(sent.body.model, 'openai/gpt-oss-120b');
  assert.equal(sent.body.response_format?.type, 'json_schema');
  assert.deepEqual(sent.body.response_format?.json_schema, { name: 'answer', schema });
  assert.equal(sent.body.max_completion_tokens, 300);
  assert.equal(sent.body.temperature, 0);
  assert.deepEqual(JSON.parse(result.text), { answer: '42' });
  assert.deepEqual(result.usage, { inputTokens: 50, outputTokens: 7, cachedTokens: 20 });
  assert.equal(result.provider, 'groq');
  assert.equal(result.finishReason, 'stop');
});

test('models without json_schema get JSON mode plus the schema in a system message', async () => {
  const groq = createGroqProvider({ apiKey: 'gsk_test', model: 'llama-3.3-70b-versatile', baseUrl: server.groqBaseUrl });
  assert.equal(groq.structuredOutput, 'json_object');
  server.script(reply.json({ answer: 'yes' }));
  const before = server.requests.length;
  await groq.complete(ask());
  const body = server.requests[before].body;
  assert.deepEqual(body.response_format, { type: 'json_object' });
  assert.equal(body.messages[0].role, 'system');
  assert.match(body.messages[0].content, /JSON schema/);
  assert.ok(body.messages[0].content.includes(JSON.stringify(schema)));
  assert.equal(body.messages[1].content, 'What is the answer?');
});

test('a response_format refusal steps down to JSON mode and stays there', async () => {
  const groq = createGroqProvider({ apiKey: 'gsk_test', model: 'openai/gpt-oss-20b', baseUrl: server.groqBaseUrl });
  server.script(
    reply.error(400, 'This model does not support response format `json_schema`'),
    reply.json({ answer: 'a' }),
    reply.json({ answer: 'b' }),
  );
  const before = server.requests.length;
  const first = await groq.complete(ask());
  assert.deepEqual(JSON.parse(first.text), { answer: 'a' });
  await groq.complete(ask());
  const formats = server.requests.slice(before).map((r) => r.body.response_format?.type);
  assert.deepEqual(formats, ['json_schema', 'json_object', 'json_object']);
  assert.equal(groq.structuredOutput, 'json_object');
});

test('a plain request (no schema) sends no response_format', async () => {
  const groq = createGroqProvider({ apiKey: 'gsk_test', baseUrl: server.groqBaseUrl });
  server.script(reply.text('Hello there'));
  const before = server.requests.length;
  const result = await groq.complete({ operation: 'threads', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(result.text, 'Hello there');
  assert.equal(server.requests[before].body.response_format, undefined);
  assert.equal(server.requests[before].body.messages.length, 1);
});

test('the SDK does not retry by itself; errors become typed LlmCallErrors', async () => {
  const groq = createGroqProvider({ apiKey: 'gsk_test', baseUrl: server.groqBaseUrl });
  server.script(reply.error(503, 'over capacity'));
  let before = server.requests.length;
  await assert.rejects(groq.complete(ask()), (error: unknown) => {
    assert.ok(error instanceof LlmCallError);
    assert.equal(error.kind, 'server');
    assert.equal(error.httpStatus, 503);
    assert.equal(error.retryable, true);
    return true;
  });
  assert.equal(server.requests.length - before, 1);

  server.script(reply.rateLimited(2));
  before = server.requests.length;
  await assert.rejects(groq.complete(ask()), (error: unknown) => {
    assert.ok(error instanceof LlmCallError);
    assert.equal(error.kind, 'rate_limited');
    assert.equal(error.retryAfterMs, 2000);
    return true;
  });
  assert.equal(server.requests.length - before, 1);

  server.script(reply.error(401, 'Invalid API Key'));
  await assert.rejects(groq.complete(ask()), (error: unknown) => {
    assert.ok(error instanceof LlmCallError);
    assert.equal(error.kind, 'client');
    assert.equal(error.retryable, false);
    assert.match(error.message, /Invalid API Key/);
    return true;
  });
});
