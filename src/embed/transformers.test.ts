// transformers.js adapters on the tiny random-weight fixtures: loading offline, from a local "hub", and failing clearly.
// The fixtures' scores mean nothing, so these tests check shapes, determinism and plumbing, never quality.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { env } from '@huggingface/transformers';
import { ModelLoadError, TransformersEmbedder, TransformersReranker, defaultPooling, type ModelProgress } from './transformers.ts';
import { MODEL_FIXTURES_DIR } from '../../test/support/embed.ts';

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i], 0);
const close = (a: Float32Array, b: Float32Array): boolean => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) < 1e-5);

const texts = [
  'Caroline went to the support group yesterday.',
  'hi',
  'Melanie painted a lake sunrise last year and is planning a camping trip with her kids in the mountains.',
  'What did Caroline research?',
  '',
];

const embedderPromise = TransformersEmbedder.load({ model: 'tiny-random-embed', modelsDir: MODEL_FIXTURES_DIR, batchSize: 2 });
const rerankerPromise = TransformersReranker.load({ model: 'tiny-random-rerank', modelsDir: MODEL_FIXTURES_DIR, batchSize: 2 });
after(async () => {
  await (await embedderPromise).dispose();
  await (await rerankerPromise).dispose();
});

test('the embedder loads offline from a models dir and knows its id and dimensions', async () => {
  const embedder = await embedderPromise;
  assert.equal(embedder.id, 'transformers:tiny-random-embed');
  assert.equal(embedder.dimensions, 16);
});

test('embeddings are unit length, in input order, deterministic, and batching does not change them', async () => {
  const embedder = await embedderPromise;
  const batched = await embedder.embed(texts);
  assert.equal(batched.length, texts.length);
  for (const v of batched) {
    assert.equal(v.length, 16);
    assert.ok(Math.abs(Math.sqrt(cosine(v, v)) - 1) < 1e-5);
  }
  const singles: Float32Array[] = [];
  for (const text of texts) singles.push((await embedder.embed([text]))[0]);
  texts.forEach((text, i) => assert.ok(close(batched[i], singles[i]), `batched and single differ for '${text}'`));
  const again = await embedder.embed(texts);
  texts.forEach((_, i) => assert.ok(close(again[i], batched[i])));
  assert.ok(cosine(batched[0], batched[2]) < 0.9999, 'different texts give different vectors');
  assert.deepEqual(await embedder.embed([]), []);
});

test('pooling follows the model and a different pooling is part of the id', async () => {
  assert.equal(defaultPooling('Xenova/bge-small-en-v1.5'), 'cls');
  assert.equal(defaultPooling('Xenova/all-MiniLM-L6-v2'), 'mean');
  const cls = await TransformersEmbedder.load({ model: 'tiny-random-embed', modelsDir: MODEL_FIXTURES_DIR, pooling: 'cls' });
  try {
    assert.equal(cls.id, 'transformers:tiny-random-embed:cls');
    const [a] = await cls.embed([texts[2]]);
    const [b] = await (await embedderPromise).embed([texts[2]]);
    assert.ok(!close(a, b));
  } finally {
    await cls.dispose();
  }
});

test('the reranker gives one finite score per document, in order, deterministic and independent of batching', async () => {
  const reranker = await rerankerPromise;
  assert.equal(reranker.id, 'transformers:tiny-random-rerank');
  const query = 'What did Caroline research?';
  const scores = await reranker.score(query, texts);
  assert.equal(scores.length, texts.length);
  assert.ok(scores.every(Number.isFinite));
  assert.deepEqual(await reranker.score(query, texts), scores);
  assert.deepEqual(await reranker.score(query, []), []);

  // The fixture averages over padding too (a real cross-encoder masks it), so compare batched with single scores
  // on documents of equal token length, where a batch needs no padding: 5 batches of 2 over 9 documents.
  const documents = [
    'the cat sat',
    'a dog ran',
    'my mom cooked',
    'we all left',
    'his car broke',
    'our team won',
    'her band played',
    'it rained hard',
    'you said yes',
  ];
  const batched = await reranker.score(query, documents);
  const singles: number[] = [];
  for (const doc of documents) singles.push(...(await reranker.score(query, [doc])));
  batched.forEach((s, i) => assert.ok(Math.abs(s - singles[i]) < 1e-5, `${documents[i]}: ${s} vs ${singles[i]}`));
  assert.ok(new Set(batched.map((s) => s.toFixed(5))).size > 1, 'different documents get different scores');
  const reversed = await reranker.score(query, [...documents].reverse());
  reversed.reverse().forEach((s, i) => assert.ok(Math.abs(s - batched[i]) < 1e-5));
});

test('a model missing from the models dir fails with a ModelLoadError naming the folder', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'cairn-models-'));
  await assert.rejects(TransformersEmbedder.load({ model: 'Xenova/bge-small-en-v1.5', modelsDir: empty }), (error: unknown) => {
    assert.ok(error instanceof ModelLoadError);
    assert.match(error.message, /Xenova\/bge-small-en-v1\.5/);
    assert.ok(error.message.includes(empty));
    return true;
  });
});

/** A stand-in for the Hugging Face hub serving the fixtures at /<model>/resolve/main/<file>. */
async function fakeHub(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const match = /^\/([^/]+)\/resolve\/main\/(.+)$/.exec(path);
    const file = match ? normalize(join(MODEL_FIXTURES_DIR, match[1], match[2])) : '';
    if (!file.startsWith(MODEL_FIXTURES_DIR) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests };
}

test('with remote allowed, models download into the cache dir with progress, and that folder then works offline', async () => {
  const hub = await fakeHub();
  const saved = env.remoteHost;
  env.remoteHost = hub.url;
  const cacheDir = mkdtempSync(join(tmpdir(), 'cairn-hub-cache-'));
  const events: ModelProgress[] = [];
  try {
    const online = await TransformersEmbedder.load({
      model: 'tiny-random-embed',
      cacheDir,
      allowRemote: true,
      onProgress: (p) => events.push(p),
    });
    assert.ok(
      hub.requests.some((path) => path.endsWith('/onnx/model.onnx')),
      'the weights came from the hub',
    );
    assert.ok(existsSync(join(cacheDir, 'tiny-random-embed', 'onnx', 'model.onnx')), 'and were kept in the cache dir');
    const progress = events.filter((e) => e.file === 'onnx/model.onnx' && e.status === 'progress');
    assert.ok(progress.length > 0, 'download progress was reported');
    const last = progress[progress.length - 1];
    assert.equal(last.loaded, last.total);
    assert.ok(events.some((e) => e.status === 'done' && e.file === 'onnx/model.onnx'));

    hub.requests.length = 0;
    const offline = await TransformersEmbedder.load({ model: 'tiny-random-embed', modelsDir: cacheDir });
    assert.deepEqual(hub.requests, [], 'a models dir is read without the network');
    const [a] = await online.embed([texts[0]]);
    const [b] = await offline.embed([texts[0]]);
    assert.ok(close(a, b));
    await online.dispose();
    await offline.dispose();
  } finally {
    env.remoteHost = saved;
    hub.server.close();
  }
});
