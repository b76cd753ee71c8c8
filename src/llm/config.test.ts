// LLM configuration: environment per operation, bank overrides (never keys), where keys may go, the start-up
// line, and a resolved provider that really talks to a (scripted, local) server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, reply } from '../../test/support/fake-llm-server.ts';
import { describeLlm, readLlmSettings, resolveLlm } from './config.ts';
import { CairnError } from '../core/errors.ts';
import { loadConfig, type Env } from '../config/index.ts';

/** The llm section of the configuration that `env` gives. */
const llmOf = (env: Env) => loadConfig(env).llm;

test('no key and no base URL: every operation is offline', () => {
  assert.equal(readLlmSettings('retain', undefined, llmOf({})), null);
  assert.equal(resolveLlm('reflect', undefined, { llm: llmOf({}) }), null);
  assert.equal(describeLlm(llmOf({})), 'llm: offline (no GROQ_API_KEY or CAIRN_LLM_BASE_URL)');
  assert.equal(describeLlm(llmOf({ CAIRN_LLM_PROVIDER: 'offline', GROQ_API_KEY: 'gsk' })), 'llm: offline (CAIRN_LLM_PROVIDER=offline)');
});

test('GROQ_API_KEY alone: groq with the default model everywhere', () => {
  const env = { GROQ_API_KEY: 'gsk_1' };
  const s = readLlmSettings('consolidation', undefined, llmOf(env));
  assert.equal(s?.provider, 'groq');
  assert.equal(s?.model, 'llama-3.3-70b-versatile');
  assert.equal(s?.apiKey, 'gsk_1');
  assert.equal(describeLlm(llmOf(env)), 'llm: groq llama-3.3-70b-versatile');
});

test('per-operation variables beat the global ones', () => {
  const env = {
    GROQ_API_KEY: 'gsk_1',
    CAIRN_LLM_MODEL: 'openai/gpt-oss-120b',
    CAIRN_CONSOLIDATION_LLM_BASE_URL: 'http://localhost:11434/v1',
    CAIRN_CONSOLIDATION_LLM_MODEL: 'qwen2.5:7b',
    CAIRN_THREADS_LLM_PROVIDER: 'offline',
    CAIRN_REFLECT_LLM_TIMEOUT_MS: '5000',
  };
  const consolidation = readLlmSettings('consolidation', undefined, llmOf(env));
  assert.equal(consolidation?.provider, 'openai-compatible');
  assert.equal(consolidation?.model, 'qwen2.5:7b');
  assert.equal(consolidation?.baseUrl, 'http://localhost:11434/v1');
  assert.equal(consolidation?.apiKey, null, 'the Groq key must not go to another endpoint');
  assert.equal(readLlmSettings('threads', undefined, llmOf(env)), null);
  assert.equal(readLlmSettings('reflect', undefined, llmOf(env))?.timeoutMs, 5000);
  assert.equal(readLlmSettings('retain', undefined, llmOf(env))?.model, 'openai/gpt-oss-120b');
  assert.equal(
    describeLlm(llmOf(env)),
    'llm: groq openai/gpt-oss-120b; consolidation: openai-compatible qwen2.5:7b at http://localhost:11434/v1; threads: offline',
  );
});

test('the global key goes only to the global endpoint; an operation key to its own', () => {
  const env = {
    CAIRN_LLM_BASE_URL: 'https://llm.internal/v1',
    CAIRN_LLM_MODEL: 'big',
    CAIRN_LLM_API_KEY: 'global-secret',
    CAIRN_THREADS_LLM_BASE_URL: 'http://localhost:1234/v1',
    CAIRN_REFLECT_LLM_BASE_URL: 'https://other.example/v1',
    CAIRN_REFLECT_LLM_API_KEY: 'reflect-secret',
  };
  assert.equal(readLlmSettings('retain', undefined, llmOf(env))?.apiKey, 'global-secret');
  assert.equal(readLlmSettings('threads', undefined, llmOf(env))?.apiKey, null);
  assert.equal(readLlmSettings('reflect', undefined, llmOf(env))?.apiKey, 'reflect-secret');
});

test('a bank may change provider, model and base URL, but a moved endpoint never receives the env key', () => {
  const env = { CAIRN_LLM_BASE_URL: 'https://llm.internal/v1', CAIRN_LLM_MODEL: 'big', CAIRN_LLM_API_KEY: 'secret' };
  assert.equal(readLlmSettings('reflect', undefined, llmOf(env))?.apiKey, 'secret');
  const modelOnly = readLlmSettings('reflect', { llm: { reflect: { model: 'small' } } }, llmOf(env));
  assert.equal(modelOnly?.model, 'small');
  assert.equal(modelOnly?.apiKey, 'secret');
  const moved = readLlmSettings('reflect', { llm: { reflect: { baseUrl: 'https://evil.example/v1' } } }, llmOf(env));
  assert.equal(moved?.baseUrl, 'https://evil.example/v1');
  assert.equal(moved?.apiKey, null);
  assert.equal(readLlmSettings('reflect', { llm: { reflect: { provider: 'offline' } } }, llmOf(env)), null);
  // The bank's override for one operation leaves the others alone.
  assert.equal(readLlmSettings('retain', { llm: { reflect: { model: 'small' } } }, llmOf(env))?.model, 'big');
});

test('bank config with an API key, or nonsense, is refused with a 400', () => {
  const env = { GROQ_API_KEY: 'gsk' };
  for (const llm of [{ retain: { apiKey: 'sk-x' } }, { retain: { provider: 'anthropic' } }, { summarise: {} }, 'groq']) {
    assert.throws(
      () => readLlmSettings('retain', { llm }, llmOf(env)),
      (e: unknown) => e instanceof CairnError && e.status === 400,
    );
  }
});

test('configurations that cannot work fail loudly', () => {
  assert.throws(() => readLlmSettings('retain', undefined, llmOf({ CAIRN_LLM_BASE_URL: 'http://localhost:8000/v1' })), /no model/);
  assert.throws(() => readLlmSettings('retain', undefined, llmOf({ CAIRN_LLM_PROVIDER: 'groq' })), /needs an API key/);
  assert.throws(() => readLlmSettings('retain', undefined, llmOf({ CAIRN_LLM_PROVIDER: 'claude' })), /CAIRN_LLM_PROVIDER/);
  assert.throws(() => describeLlm(llmOf({ GROQ_API_KEY: 'k', CAIRN_LLM_STRUCTURED_OUTPUT: 'xml' })), /STRUCTURED_OUTPUT/);
  assert.throws(() => readLlmSettings('retain', undefined, llmOf({ GROQ_API_KEY: 'k', CAIRN_LLM_CONCURRENCY: '0' })), /CONCURRENCY/);
});

test('resolveLlm builds a working, shared provider from the environment', async () => {
  const server = await startFakeLlmServer();
  try {
    const env = {
      CAIRN_LLM_BASE_URL: server.openaiBaseUrl,
      CAIRN_LLM_MODEL: 'llama3.1:8b',
      CAIRN_LLM_STRUCTURED_OUTPUT: 'json_object',
      CAIRN_LLM_MAX_RETRIES: '1',
    };
    const llm = resolveLlm('retain', undefined, { llm: llmOf(env) });
    assert.ok(llm);
    assert.equal(llm, resolveLlm('retain', undefined, { llm: llmOf(env) }), 'same settings, same instance');
    assert.equal(llm.provider, 'openai-compatible');
    server.script(reply.error(500), reply.json({ ok: 1 }));
    const result = await llm.complete({
      operation: 'retain',
      messages: [{ role: 'user', content: 'x' }],
      jsonSchema: { name: 'r', schema: { type: 'object' } },
    });
    assert.equal(result.text, '{"ok":1}');
    assert.equal(server.requests.length, 2, 'one retry from the resilience layer');
    assert.equal(server.requests[1].body.response_format?.type, 'json_object');
    assert.equal(server.requests[1].body.model, 'llama3.1:8b');
  } finally {
    await server.close();
  }
});

test('groq through resolveLlm uses the configured base URL root and the key', async () => {
  const server = await startFakeLlmServer();
  try {
    const env = { GROQ_API_KEY: 'gsk_live', CAIRN_LLM_PROVIDER: 'groq', CAIRN_LLM_BASE_URL: `${server.groqBaseUrl}/openai/v1` };
    const llm = resolveLlm('reflect', undefined, { llm: llmOf(env) });
    server.script(reply.text('hi'));
    await llm?.complete({ operation: 'reflect', messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(server.requests[0].path, '/openai/v1/chat/completions');
    assert.equal(server.requests[0].headers.authorization, 'Bearer gsk_live');
  } finally {
    await server.close();
  }
});
