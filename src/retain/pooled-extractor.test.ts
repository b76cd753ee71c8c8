// The pooled offline extractor gives exactly what the in-process one gives, before and after its worker thread
// starts taking work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import type { ExtractInput } from './extractor.ts';
import { OfflineExtractor } from './offline-extractor.ts';
import { PooledExtractor } from './pooled-extractor.ts';

const PLACES = ['Porto', 'Ghent', 'Kyoto', 'Oslo'];
const inputs: ExtractInput[] = Array.from({ length: 48 }, (_, i) => ({
  bankId: 'b',
  text: `I met my sister Anna in ${PLACES[i % 4]} last June. So we went hiking on day ${i}!`,
  speaker: i % 2 ? 'Alice' : 'Bram',
  fromAgent: i % 3 === 0,
  timestamp: new Date(Date.UTC(2024, 2, 1 + i)).toISOString(),
  context: null,
}));

test('pooled extraction equals in-process extraction, on the main thread and on the worker thread', async () => {
  const pooled = new PooledExtractor({ threads: 1, warmAfter: 32 });
  const local = new OfflineExtractor();
  const expected = await Promise.all(inputs.map((i) => local.extract(i)));
  const limit = pLimit(pooled.concurrency);
  assert.deepEqual(await Promise.all(inputs.map((i) => limit(() => pooled.extract(i)))), expected);
  for (let waited = 0; !pooled.threadsReady && waited < 60_000; waited += 100) await sleep(100);
  assert.ok(pooled.threadsReady, 'the worker thread started after enough local extractions');
  assert.deepEqual(await Promise.all(inputs.map((i) => limit(() => pooled.extract(i)))), expected);
});

test('threads that cannot start leave the extraction on the main thread, and the process running', async () => {
  const pooled = new PooledExtractor({ threads: 1, warmAfter: 32, entry: new URL('./no-such-worker.js', import.meta.url) });
  const local = new OfflineExtractor();
  const expected = await Promise.all(inputs.map((i) => local.extract(i)));
  const limit = pLimit(pooled.concurrency);
  assert.deepEqual(await Promise.all(inputs.map((i) => limit(() => pooled.extract(i)))), expected);
  assert.ok(pooled.threadsSettled, 'the threads were asked to start');
  await pooled.threadsSettled;
  assert.equal(pooled.threadsReady, false);
  assert.deepEqual(await Promise.all(inputs.map((i) => limit(() => pooled.extract(i)))), expected);
});

test('threads that stopped when idle give the work back to the main thread until they are warm again', async () => {
  // Its own pool (two threads): a thread stopped after idling takes seconds to start again, which no retain waits for.
  const pooled = new PooledExtractor({ threads: 2, idleTimeoutMs: 200, warmAfter: 32 });
  const local = new OfflineExtractor();
  const expected = await Promise.all(inputs.map((i) => local.extract(i)));
  const limit = pLimit(pooled.concurrency);
  assert.deepEqual(await Promise.all(inputs.map((i) => limit(() => pooled.extract(i)))), expected);
  for (let waited = 0; !pooled.threadsReady && waited < 60_000; waited += 100) await sleep(100);
  assert.ok(pooled.threadsReady, 'the threads started');
  await sleep(1500);
  assert.equal(pooled.threadsReady, false, 'idle threads stopped: the main thread extracts');
  // One small extraction runs here and starts no thread (a thread takes seconds to start).
  assert.deepEqual(await pooled.extract(inputs[0]), expected[0]);
  assert.equal(pooled.threadsSettled, null, 'the threads were not asked to start again');
  assert.deepEqual(await Promise.all(inputs.map((i) => limit(() => pooled.extract(i)))), expected);
  for (let waited = 0; !pooled.threadsReady && waited < 60_000; waited += 100) await sleep(100);
  assert.ok(pooled.threadsReady, 'enough work starts them again');
  assert.deepEqual(await Promise.all(inputs.map((i) => limit(() => pooled.extract(i)))), expected);
});

test('extractions on the main thread take one turn of the event loop each, whoever started them', async () => {
  const pooled = new PooledExtractor({ threads: 0 });
  const other = new PooledExtractor({ threads: 0 });
  let done = 0;
  let turns = 0;
  let mostInOneTurn = 0;
  let running = true;
  // A ticker that counts the extractions finished between two of its turns.
  let seen = 0;
  const tick = (): void => {
    turns++;
    mostInOneTurn = Math.max(mostInOneTurn, done - seen);
    seen = done;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = [...inputs.slice(0, 6).map((i) => pooled.extract(i)), ...inputs.slice(6, 12).map((i) => other.extract(i))];
  await Promise.all(started.map((p) => p.then(() => void done++)));
  running = false;
  assert.equal(done, 12);
  assert.ok(turns >= 12, `the event loop turned ${turns} times during 12 extractions`);
  assert.ok(mostInOneTurn <= 1, `${mostInOneTurn} extractions finished within one turn of the event loop`);
});
