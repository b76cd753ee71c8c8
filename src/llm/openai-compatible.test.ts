// The OpenAI-compatible adapter on the real openai client, against the scripted fake of the chat-completions
// protocol: the three structured-output modes, keyless local servers, usage mapping, error translation.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, reply, type FakeLlmServer } from '../../test/support/fake-llm-server.ts';
import { createOpenAiCompatibleProvider } from './openai-compatible.ts';
import { LlmCallError } from './errors.ts';
import type { CompletionRequest } from './ports.ts';

let server: FakeLlmServer;
before(async () => {
  server = await startFakeLlmServer();
});
after(() => server.close());
beforeEach(() => assert.equal(server.pending, 0, 'previous test left scripted replies unused'));

const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
const ask: CompletionRequest = {
  operation: 'consolidation',
  messages: [
    { role: 'system', content: 'You count.' },
    { role: 'user', content: 'How many?' },
  ],
  jsonSchema: { name: 'count', schema },
  maxTokens: 64,
};

test('json_schema is sent by default, on the OpenAI path, with max_tokens and the key', async () => {
  const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'qwen2.5:7b', apiKey: 'sk-local' });
  server.script(reply.json({ n: 3 }, { prompt: 31, completion: 4, cached: 16 }));
  const before = server.requests.length;
  const result = await llm.complete(ask);
  const sent = server.requests[before];
  assert.equal(sent.path, '/v1/chat/completions');
  assert.equal(sent.headers.authorization, 'Bearer sk-local');
  assert.deepEqual(sent.body.response_format, { type: 'json_schema', json_schema: { name: 'count', schema } });
  assert.equal(sent.body.max_tokens, 64);
  assert.deepEqual(sent.body.messages, ask.messages);
  assert.deepEqual(result.usage, { inputTokens: 31, outputTokens: 4, cachedTokens: 16 });
  assert.equal(result.provider, 'openai-compatible');
  assert.equal(result.model, 'qwen2.5:7b');
});

test('capability json_object: JSON mode, schema described in a leading system message', async () => {
  const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm', structuredOutput: 'json_object' });
  server.script(reply.json({ n: 1 }));
  const before = server.requests.length;
  await llm.complete(ask);
  const body = server.requests[before].body;
  assert.deepEqual(body.response_format, { type: 'json_object' });
  assert.equal(body.messages.length, 3);
  assert.ok(body.messages[0].content.includes(JSON.stringify(schema)));
});

test('capability text: no response_format at all, the schema still in the prompt', async () => {
  const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm', structuredOutput: 'text' });
  server.script(reply.text('{"n": 2}'));
  const before = server.requests.length;
  await llm.complete(ask);
  const body = server.requests[before].body;
  assert.equal(body.response_format, undefined);
  assert.ok(body.messages[0].content.includes(JSON.stringify(schema)));
});

test('refusals step down json_schema -> json_object -> text', async () => {
  const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm' });
  server.script(
    reply.error(400, "Invalid value for 'response_format': json_schema is not supported"),
    reply.error(400, "'response_format.type' must be 'text'"),
    reply.json({ n: 9 }),
  );
  const before = server.requests.length;
  const result = await llm.complete(ask);
  assert.equal(result.text, '{"n":9}');
  const formats = server.requests.slice(before).map((r) => r.body.response_format?.type ?? 'none');
  assert.deepEqual(formats, ['json_schema', 'json_object', 'none']);
  assert.equal(llm.structuredOutput, 'text');
});

test('a 400 about something else is not mistaken for a refusal', async () => {
  const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm' });
  server.script(reply.error(400, 'context length exceeded'));
  const before = server.requests.length;
  await assert.rejects(llm.complete(ask), (e: unknown) => e instanceof LlmCallError && e.kind === 'client');
  assert.equal(server.requests.length - before, 1);
  assert.equal(llm.structuredOutput, 'json_schema');
});

test('without a key no Authorization header is sent, even with OPENAI_API_KEY in the environment', async () => {
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = 'sk-must-not-leak';
  try {
    const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'llama3.2' });
    server.script(reply.json({ n: 0 }));
    const before = server.requests.length;
    await llm.complete(ask);
    assert.equal(server.requests[before].headers.authorization, undefined);
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  }
});

test('a dropped connection is a retryable network error, and the SDK did not retry it', async () => {
  const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm' });
  server.script(reply.drop());
  const before = server.requests.length;
  await assert.rejects(llm.complete(ask), (e: unknown) => e instanceof LlmCallError && e.kind === 'network' && e.retryable);
  assert.equal(server.requests.length - before, 1);
});
