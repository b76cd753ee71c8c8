// generateObject end to end: zod schema -> JSON schema on the wire -> tolerant parse -> zod validation, the one
// corrective retry that shows the model its reply and the error, and LlmOutputError when that fails too.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { startFakeLlmServer, reply, type FakeLlmServer } from '../../test/support/fake-llm-server.ts';
import { createOpenAiCompatibleProvider } from './openai-compatible.ts';
import { createGroqProvider } from './groq.ts';
import { withResilience } from './resilience.ts';
import { generateObject, jsonSchemaOf } from './structured.ts';
import { LlmOutputError } from './errors.ts';
import type { ObjectRequest } from './structured.ts';

let server: FakeLlmServer;
before(async () => {
  server = await startFakeLlmServer();
});
after(() => server.close());
beforeEach(() => assert.equal(server.pending, 0, 'previous test left scripted replies unused'));

const Facts = z.object({
  facts: z.array(z.object({ text: z.string().min(1), confidence: z.number().min(0).max(1) })),
});
const request: ObjectRequest = {
  operation: 'retain',
  bankId: 'bank_1',
  schemaName: 'facts',
  messages: [{ role: 'user', content: 'Ana moved to Lisbon in 2021.' }],
};
const openai = () => createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'local-model' });

test('a well-formed reply is parsed, validated and typed; the zod schema travels as JSON schema', async () => {
  const facts = { facts: [{ text: 'Ana moved to Lisbon in 2021', confidence: 0.9 }] };
  server.script(reply.json(facts, { prompt: 100, completion: 20, cached: 0 }));
  const before = server.requests.length;
  const result = await generateObject(openai(), request, Facts);
  assert.deepEqual(result.value, facts);
  assert.equal(result.attempts, 1);
  assert.deepEqual(result.usage, { inputTokens: 100, outputTokens: 20, cachedTokens: 0 });

  const format = server.requests[before].body.response_format;
  assert.equal(format?.type, 'json_schema');
  assert.equal(format?.json_schema?.name, 'facts');
  assert.deepEqual(format?.json_schema?.schema, jsonSchemaOf(Facts));
  assert.equal(format?.json_schema?.schema.$schema, undefined);
  assert.deepEqual(format?.json_schema?.schema.required, ['facts']);
});

test('malformed JSON, then a valid reply after a retry that shows the reply and the error', async () => {
  const broken = '{"facts": [{"text": "Ana moved", "confidence": 0.8}';
  server.script(reply.text(broken, { prompt: 50, completion: 10 }), reply.json({ facts: [] }, { prompt: 80, completion: 5 }));
  const before = server.requests.length;
  const result = await generateObject(openai(), request, Facts);
  assert.deepEqual(result.value, { facts: [] });
  assert.equal(result.attempts, 2);
  assert.deepEqual(result.usage, { inputTokens: 130, outputTokens: 15, cachedTokens: 0 });

  const retry = server.requests[before + 1].body.messages;
  assert.equal(retry.length, 3);
  assert.deepEqual(retry[0], request.messages[0]);
  assert.deepEqual(retry[1], { role: 'assistant', content: broken });
  assert.equal(retry[2].role, 'user');
  assert.match(retry[2].content, /never closed/);
});

test("a schema violation is retried with zod's description of what is wrong", async () => {
  server.script(
    reply.json({ facts: [{ text: 'x', confidence: 7 }] }),
    reply.text('```json\n{"facts": [{"text": "x", "confidence": 0.7},]}\n```'),
  );
  const before = server.requests.length;
  const result = await generateObject(openai(), request, Facts);
  assert.deepEqual(result.value, { facts: [{ text: 'x', confidence: 0.7 }] });
  const correction = server.requests[before + 1].body.messages.at(-1)?.content ?? '';
  assert.match(correction, /does not match the schema/);
  assert.match(correction, /confidence/);
});

test('twice unusable: LlmOutputError with the last reply, never junk', async () => {
  server.script(reply.text('Sorry, I cannot do JSON.'), reply.json({ facts: 'none' }));
  await assert.rejects(generateObject(openai(), request, Facts), (error: unknown) => {
    assert.ok(error instanceof LlmOutputError);
    assert.equal(error.attempts, 2);
    assert.equal(error.reply, '{"facts":"none"}');
    assert.match(error.problem, /facts/);
    assert.equal(error.operation, 'retain');
    return true;
  });
});

test('a cut-off reply says so in the correction', async () => {
  server.script({ type: 'completion', content: '{"facts": [{"text": "long', finishReason: 'length' }, reply.json({ facts: [] }));
  const before = server.requests.length;
  await generateObject(openai(), request, Facts);
  assert.match(server.requests[before + 1].body.messages.at(-1)?.content ?? '', /cut off at the token limit/);
});

test('works through Groq in JSON mode with resilience in front', async () => {
  const groq = withResilience(createGroqProvider({ apiKey: 'gsk', baseUrl: server.groqBaseUrl }), { backoffBaseMs: 5 });
  server.script(reply.error(500), reply.json({ facts: [{ text: 'y', confidence: 1 }] }));
  const before = server.requests.length;
  const result = await generateObject(groq, request, Facts);
  assert.equal(result.value.facts[0].text, 'y');
  assert.deepEqual(server.requests[before + 1].body.response_format, { type: 'json_object' });
});
