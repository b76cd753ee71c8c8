// Choosing adapters from the configuration: offline defaults, local models, automatic reranker, clear failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { env as transformersEnv } from '@huggingface/transformers';
import { loadConfig, type Env } from '../config/index.ts';
import { createEmbedder, createReranker } from './select.ts';
import { GLOVE_ID, GloveEmbedder } from './glove.ts';
import { ModelLoadError, TransformersEmbedder, TransformersReranker } from './transformers.ts';
import { MODEL_FIXTURES_DIR, TEST_CACHE_DIR } from '../../test/support/embed.ts';

/** The embed section of the configuration that `env` gives. */
const embed = (env: Env) => loadConfig(env).embed;
const embedderChoice = (env: Env) => embed(env).embedder;

test('with nothing configured: the offline GloVe embedder and no reranker', async () => {
  const env = { CAIRN_CACHE_DIR: TEST_CACHE_DIR };
  const { embedder, description } = await createEmbedder(embed(env));
  assert.ok(embedder instanceof GloveEmbedder);
  assert.equal(embedder.id, GLOVE_ID);
  assert.match(description, /^embedder: glove:wink-sg-100d:v1 \(offline, 100-d/);
  const reranker = await createReranker(embed(env));
  assert.equal(reranker.reranker, null);
  assert.equal(reranker.description, 'reranker: none');
});

test('a model id with CAIRN_MODELS_DIR loads that model locally; the reranker stays off if the dir lacks the default one', async () => {
  const env = { CAIRN_EMBEDDER: 'tiny-random-embed', CAIRN_MODELS_DIR: MODEL_FIXTURES_DIR, CAIRN_CACHE_DIR: TEST_CACHE_DIR };
  const { embedder, description } = await createEmbedder(embed(env));
  assert.ok(embedder instanceof TransformersEmbedder);
  assert.equal(embedder.id, 'transformers:tiny-random-embed');
  assert.equal(description, `embedder: transformers:tiny-random-embed (16-d, local models in ${MODEL_FIXTURES_DIR})`);
  await embedder.dispose();
  const { reranker, description: rerankerDescription } = await createReranker(embed(env));
  assert.equal(reranker, null);
  assert.match(rerankerDescription, /^reranker: none \(Xenova\/ms-marco-MiniLM-L-6-v2 is not in CAIRN_MODELS_DIR\)$/);
});

test('the reranker turns on by itself when the models dir holds the default one, and CAIRN_RERANKER=none turns it off', async () => {
  const modelsDir = mkdtempSync(join(tmpdir(), 'cairn-models-'));
  mkdirSync(join(modelsDir, 'Xenova'));
  symlinkSync(join(MODEL_FIXTURES_DIR, 'tiny-random-rerank'), join(modelsDir, 'Xenova', 'ms-marco-MiniLM-L-6-v2'), 'dir');
  const env = { CAIRN_MODELS_DIR: modelsDir, CAIRN_CACHE_DIR: TEST_CACHE_DIR };
  const { reranker, description } = await createReranker(embed(env));
  assert.ok(reranker instanceof TransformersReranker);
  assert.equal(reranker.id, 'transformers:Xenova/ms-marco-MiniLM-L-6-v2');
  assert.equal(description, `reranker: transformers:Xenova/ms-marco-MiniLM-L-6-v2 (local models in ${modelsDir})`);
  assert.equal((await reranker.score('q', ['a', 'b'])).length, 2);
  await reranker.dispose();
  assert.equal((await createReranker(embed({ ...env, CAIRN_RERANKER: 'none' }))).reranker, null);

  const explicit = await createReranker(embed({ CAIRN_RERANKER: 'transformers:tiny-random-rerank', CAIRN_MODELS_DIR: MODEL_FIXTURES_DIR }));
  assert.equal(explicit.reranker?.id, 'transformers:tiny-random-rerank');
  await (explicit.reranker as TransformersReranker).dispose();
});

test('a transformers model missing from CAIRN_MODELS_DIR fails with a message that says what to set', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'cairn-models-'));
  await assert.rejects(createEmbedder(embed({ CAIRN_EMBEDDER: 'transformers', CAIRN_MODELS_DIR: empty })), (error: unknown) => {
    assert.ok(error instanceof ModelLoadError);
    assert.match(error.message, /Xenova\/bge-small-en-v1\.5/);
    assert.match(error.message, /CAIRN_EMBEDDER=glove/);
    assert.match(error.message, /CAIRN_MODELS_DIR/);
    return true;
  });
  await assert.rejects(
    createReranker(embed({ CAIRN_RERANKER: 'Xenova/ms-marco-MiniLM-L-6-v2', CAIRN_MODELS_DIR: empty })),
    /CAIRN_RERANKER=none/,
  );
});

test('without network the hub download fails with the same guidance', async () => {
  // A port that was just freed: connections are refused, as with no network.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const saved = transformersEnv.remoteHost;
  transformersEnv.remoteHost = `http://127.0.0.1:${port}/`;
  try {
    const env = { CAIRN_EMBEDDER: 'Xenova/all-MiniLM-L6-v2', CAIRN_CACHE_DIR: mkdtempSync(join(tmpdir(), 'cairn-cache-')) };
    await assert.rejects(createEmbedder(embed(env)), (error: unknown) => {
      assert.ok(error instanceof ModelLoadError);
      assert.match(error.message, /Hugging Face hub/);
      assert.match(error.message, /CAIRN_EMBEDDER=glove/);
      return true;
    });
    // Choosing a hub embedder implies hub access, so the reranker is wanted too and fails the same way.
    await assert.rejects(createReranker(embed(env)), /Xenova\/ms-marco-MiniLM-L-6-v2[\s\S]*CAIRN_RERANKER=none/);
  } finally {
    transformersEnv.remoteHost = saved;
  }
});

test('CAIRN_EMBEDDER values', () => {
  assert.deepEqual(embedderChoice({}), { kind: 'glove' });
  assert.deepEqual(embedderChoice({ CAIRN_EMBEDDER: GLOVE_ID }), { kind: 'glove' });
  assert.deepEqual(embedderChoice({ CAIRN_EMBEDDER: 'transformers' }), { kind: 'transformers', model: 'Xenova/bge-small-en-v1.5' });
  assert.deepEqual(embedderChoice({ CAIRN_EMBEDDER: 'transformers:Xenova/all-MiniLM-L6-v2' }), {
    kind: 'transformers',
    model: 'Xenova/all-MiniLM-L6-v2',
  });
  assert.throws(() => embedderChoice({ CAIRN_EMBEDDER: 'glove:other-300d' }), /not a known GloVe embedder/);
});
