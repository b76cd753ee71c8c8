import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { random } from '../../benchmarks/random.ts';
import { batchTop } from './batch-top.ts';

const rows = (n: number, dim: number): Float32Array => {
  const rnd = random(n);
  return Float32Array.from({ length: n * dim }, () => rnd() - 0.5);
};

test('queries beyond one product are ranked in several, each as if alone', async () => {
  const dim = 8;
  const n = 1 << 20; // one product holds 4 queries of a million rows
  const data = rows(n, dim);
  const queries = Array.from({ length: 9 }, (_, q) => Float32Array.from({ length: dim }, (_, i) => Math.cos(q + i)));
  const together = await batchTop(data, n, dim, queries, 3);
  assert.ok(together);
  for (const [q, query] of queries.entries()) {
    const alone = await batchTop(data, n, dim, [query, query], 3);
    assert.deepEqual([...together[q].rows], [...(alone?.[0].rows ?? [])], `query ${q}`);
  }
});

test('a worker thread ranks as the main thread does, both with the runtime loaded', async () => {
  const url = new URL('./batch-top.ts', import.meta.url).href;
  const data = rows(64, 8);
  const queries = [new Float32Array(8).fill(1), new Float32Array(8).fill(-1)];
  const here = await batchTop(data, 64, 8, queries, 3);
  assert.ok(here);
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url)}); })
      .then(async ({ batchTop }) => {
        const r = await batchTop(workerData.data, 64, 8, workerData.queries, 3);
        parentPort.postMessage(r && r.map((x) => [...x.rows]));
      });`;
  const answer = await new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { data, queries } });
    w.once('message', (m) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
  assert.deepEqual(
    answer,
    here.map((x) => [...x.rows]),
  );
  // The main thread still ranks afterwards.
  assert.ok(await batchTop(rows(64, 8), 64, 8, queries, 2));
});
