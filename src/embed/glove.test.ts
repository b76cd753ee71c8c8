// The offline GloVe embedder: one-time cache, unit vectors, real semantic quality, speed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { GLOVE_ID, GloveEmbedder, tokenize } from './glove.ts';
import { GLOVE_VOCABULARY, readGloveCache } from './glove-cache.ts';
import { TEST_GLOVE_CACHE_FILE } from '../../test/support/embed.ts';

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i], 0);
const norm = (v: Float32Array): number => Math.sqrt(cosine(v, v));

test('the cache is built at most once, then loaded from the binary file without touching the JSON', async () => {
  const first = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
  const second = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
  assert.equal(second.loadInfo.source, 'cache');
  assert.ok(second.loadInfo.ms < 1000, `second load took ${second.loadInfo.ms} ms`);
  if (first.loadInfo.source === 'built') {
    // Parsing the JSON alone takes seconds; reading the cache must be far cheaper than building it.
    assert.ok(second.loadInfo.ms < first.loadInfo.ms / 3, `load ${second.loadInfo.ms} ms vs build ${first.loadInfo.ms} ms`);
  }
  const bytes = statSync(TEST_GLOVE_CACHE_FILE).size;
  assert.ok(bytes < 16 * 1024 * 1024, `cache is ${bytes} bytes`);
  assert.deepEqual(
    readdirSync(dirname(TEST_GLOVE_CACHE_FILE)).filter((name) => name.endsWith('.tmp')),
    [],
    'no temp files left behind',
  );
  assert.equal(second.id, GLOVE_ID);
  assert.equal(second.dimensions, 100);
});

test('a corrupt, truncated or stale cache reads as missing (so it gets rebuilt)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-glove-'));
  const garbage = join(dir, 'garbage.bin');
  writeFileSync(garbage, 'not a cache at all');
  assert.equal(readGloveCache(garbage), undefined);
  const truncated = join(dir, 'truncated.bin');
  const real = readFileSync(TEST_GLOVE_CACHE_FILE);
  writeFileSync(truncated, real.subarray(0, real.length - 10));
  assert.equal(readGloveCache(truncated), undefined);
  assert.equal(readGloveCache(join(dir, 'missing.bin')), undefined);
  assert.equal(readGloveCache(TEST_GLOVE_CACHE_FILE)?.words.length, GLOVE_VOCABULARY);
  // Stale: the cache records the size of the JSON it came from; without the package it is trusted as is.
  assert.equal(readGloveCache(TEST_GLOVE_CACHE_FILE, garbage), undefined);
  assert.equal(readGloveCache(TEST_GLOVE_CACHE_FILE, null)?.words.length, GLOVE_VOCABULARY);
});

test('vectors are unit length, 100-d, in order and deterministic; texts without known words still get one', async () => {
  const glove = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
  const texts = ['Caroline went to the LGBTQ support group yesterday.', '', 'zzqxv 2023 ###', 'a'];
  const vectors = await glove.embed(texts);
  assert.equal(vectors.length, texts.length);
  for (const v of vectors) {
    assert.equal(v.length, 100);
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
    assert.ok(v.every(Number.isFinite));
  }
  const again = await glove.embed([texts[2], texts[0]]);
  assert.deepEqual(again[0], vectors[2]);
  assert.deepEqual(again[1], vectors[0]);
  assert.ok(cosine(vectors[0], vectors[2]) < 0.99, 'an unknown text is not a copy of a known one');
});

test('semantically related sentences score higher than unrelated ones', async () => {
  const glove = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
  const [puppy, dog, stocks] = await glove.embed(['I adopted a puppy', 'my new dog', 'the stock market crashed']);
  assert.ok(cosine(puppy, dog) > cosine(puppy, stocks) + 0.2, `${cosine(puppy, dog)} vs ${cosine(puppy, stocks)}`);
  assert.ok(cosine(dog, puppy) > cosine(dog, stocks) + 0.2, `${cosine(dog, puppy)} vs ${cosine(dog, stocks)}`);

  const [nurse, health, hiking] = await glove.embed([
    'She works as a nurse at the hospital',
    'her job in healthcare and medicine',
    'we went hiking in the mountains last weekend',
  ]);
  assert.ok(cosine(nurse, health) > cosine(nurse, hiking), `${cosine(nurse, health)} vs ${cosine(nurse, hiking)}`);
});

test('words missing from the table fall back to a word with the same stem', async () => {
  const glove = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
  const table = readGloveCache(TEST_GLOVE_CACHE_FILE);
  assert.ok(table);
  assert.equal(table.rows.get('adoptings'), undefined);
  assert.notEqual(table.rows.get('adopt'), undefined);
  const [inflected, base, other] = await glove.embed(['adoptings', 'adopt', 'market']);
  assert.deepEqual(inflected, base);
  assert.ok(cosine(inflected, other) < 0.9);
});

test('the words nearest a word: its kind and its members, nearest first, never the word itself', async () => {
  const embedder = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
  const near = embedder.similarWords('instruments', 10);
  assert.equal(near.length, 10);
  const words = near.map((n) => n.word);
  assert.ok(!words.includes('instruments'));
  for (const member of ['violin', 'guitars', 'percussion']) assert.ok(words.includes(member), `${member} in ${words.join(', ')}`);
  for (let i = 1; i < near.length; i++) assert.ok(near[i - 1].similarity >= near[i].similarity);
  assert.ok(near[0].similarity < 1 && near[9].similarity > 0.5);
  // Any case; a word the table does not know (nor its stem) has none.
  assert.ok(embedder.similarWords('Instruments', 3).length === 3);
  assert.deepEqual(embedder.similarWords('qzxvw', 5), []);
});

test('the tokenizer lowercases and splits clitics the way GloVe saw them', () => {
  assert.deepEqual(tokenize("I can't believe it's John's well-known e-mail, don’t you?"), [
    'i',
    'can',
    'not',
    'believe',
    'it',
    'john',
    'well-known',
    'e-mail',
    'do',
    'not',
    'you',
  ]);
});

test('embedding is far cheaper than retaining (1,000 sentences well under a second)', async () => {
  const glove = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
  const subjects = ['Melanie', 'my sister', 'the team', 'our neighbour', 'John'];
  const verbs = ['painted', 'adopted', 'visited', 'talked about', 'cooked'];
  const objects = ['a sunset over the lake', 'two cats from the shelter', 'the museum downtown', 'her new job', 'pasta with friends'];
  const sentences = Array.from(
    { length: 1000 },
    (_, i) => `${subjects[i % 5]} ${verbs[(i >> 2) % 5]} ${objects[(i >> 4) % 5]} on day ${i}.`,
  );
  await glove.embed(sentences.slice(0, 50)); // warm-up
  const started = performance.now();
  const vectors = await glove.embed(sentences);
  const ms = performance.now() - started;
  assert.equal(vectors.length, 1000);
  const perSecond = 1000 / (ms / 1000);
  assert.ok(perSecond > 3000, `${Math.round(perSecond)} sentences/s`);
});
