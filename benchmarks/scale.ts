// Scale benchmark: one bank of N synthetic facts (the generator of the recall benchmark's 100k case: one sentence
// per item, varied names, places and topics), in the default embedded store.
//   1. retain time (worker off), disk size, resident memory;
//   2. a cold start: the store opened afresh in this process (nothing cached in memory; the OS file cache is warm),
//      the time of the first recall, recall while the vector graph is still being read (served by exact scans), then
//      steady recall p50/p95 (200 queries, no reranker), per query, and the medians of its stages;
//   3. consolidation at that size: the time of a batch (the default claim of 16 facts), and recall right after each
//      batch against steady recall (the ratio of medians).
// Prints a table and appends it, with the command and the load average, to benchmarks/RESULTS.md.
//   npm run bench:scale -- [--facts 100000] [--batches 20] [--data DIR (kept and reused)] [--no-record]
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config/index.ts';
import type { Engine } from '../src/engine.ts';
import type { ArmName, RecallTimings } from '../src/recall/index.ts';
import type { MemoryStore } from '../src/store/index.ts';
import { ROOT } from './beam-server.ts';
import { cpuProbe, cpuTicks, formatLoad, percentile, probed, stolen } from './measure.ts';
import { syntheticItems } from './synthetic.ts';

const { values } = parseArgs({
  options: { facts: { type: 'string' }, batches: { type: 'string' }, data: { type: 'string' }, 'no-record': { type: 'boolean' } },
});
const N = Number(values.facts ?? 100_000);
const BATCHES = Number(values.batches ?? 20);
if (!Number.isInteger(N) || N <= 0) throw new Error('--facts must be a positive integer');
const BANK = 'scale';
const QUERIES = [
  'What did Ava buy?',
  'Who visited Kyoto with Ben?',
  'jazz piano',
  'What happened last June?',
  'Tell me about the marathon',
];
const dataDir = values.data ?? mkdtempSync(join(tmpdir(), 'cairn-scale-'));
const config = loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_WORKER: 'off', CAIRN_LOG_LEVEL: 'warn' });
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
const rssMb = (): number => process.memoryUsage().rss / 1024 / 1024;

function diskBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true }))
    total += e.isDirectory() ? diskBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return total;
}

/** Waits for the bank's vector index to be loaded with its HNSW graph (the embedded store's; others have nothing
 * to wait for). */
async function vectorsWarm(store: MemoryStore): Promise<void> {
  await (store.vectors as { warm?: (bank: string) => Promise<unknown> }).warm?.(BANK);
}

async function recallMs(engine: Engine, i: number): Promise<number> {
  const t = performance.now();
  await engine.recall(BANK, { query: QUERIES[i % QUERIES.length], queryTime: '2024-01-01T00:00:00Z' });
  return performance.now() - t;
}

const rows: string[] = [];
const loadBefore = formatLoad();
const ticksBefore = cpuTicks();
const probeBefore = cpuProbe();
let retained = false;
{
  const { engine, store, shutdown } = await compose(config, { startWorker: false, announce: false });
  const existing = await engine.findBank(BANK);
  if (!existing) {
    await engine.createBank({ id: BANK });
    const t0 = performance.now();
    for (let i = 0; i < N; i += 500) {
      await engine.retain(BANK, { items: syntheticItems(i, Math.min(N, i + 500)) });
      if ((i / 500) % 40 === 0) process.stderr.write(`scale: ${i + 500}/${N} retained (load ${formatLoad()})\n`);
    }
    const s = (performance.now() - t0) / 1000;
    rows.push(
      `| retain ${N} items (one fact each, worker off) | ${s.toFixed(0)} s (${(N / s).toFixed(0)} items/s); resident memory after ${rssMb().toFixed(0)} MB |`,
    );
    retained = true;
    // The vector index's graph is built and snapshotted in the background: let it finish before the cold start.
    await vectorsWarm(store);
  }
  await shutdown();
}
rows.push(`| disk (data directory) | ${mb(diskBytes(dataDir))} MB |`);

// 2. Cold start.
const rssBefore = rssMb();
const tOpen = performance.now();
const { engine, worker, store, shutdown } = await compose(config, { startWorker: false, announce: false });
const openMs = performance.now() - tOpen;
const firstMs = await recallMs(engine, 0);
// Until the bank's HNSW graph is read from its snapshot (in the background), vector searches scan every vector:
// recall is served meanwhile, slower, and measured apart from steady state.
let warm = false;
const warming = vectorsWarm(store).then(() => {
  warm = true;
});
const loading: number[] = [];
await Promise.race([warming, new Promise((turn) => setImmediate(turn))]); // a bank with nothing to load is warm at once
for (let i = 1; !warm; i++) loading.push(await recallMs(engine, i));
await warming;
const warmSeconds = (performance.now() - tOpen) / 1000;
// Steady state: each recall's time by query, and the engine's own stage timings (arms as time from the start).
const steady: number[] = [];
const byQuery = new Map<string, number[]>(QUERIES.map((q) => [q, []]));
const stages: RecallTimings[] = [];
const unhear = engine.events.on('recalled', (_bank, timings) => {
  stages.push(timings);
});
for (let i = 1; i <= 200; i++) {
  const ms = await recallMs(engine, i);
  steady.push(ms);
  byQuery.get(QUERIES[i % QUERIES.length])?.push(ms);
}
unhear();
const median = (pick: (t: RecallTimings) => number): string => percentile(stages.map(pick), 50).toFixed(1);
const arms = Object.keys(stages[0]?.perArm ?? {}) as ArmName[];
rows.push(
  `| open the store (compose) | ${openMs.toFixed(0)} ms |`,
  `| first recall after the open | **${firstMs.toFixed(0)} ms** |`,
  `| recall while the vector graph loads (${warmSeconds.toFixed(1)} s after the open) | ${loading.length} recalls${
    loading.length ? `, p50 ${percentile(loading, 50).toFixed(1)} ms, p95 ${percentile(loading, 95).toFixed(1)} ms` : ''
  } |`,
  `| steady recall (graph loaded), 200 queries, no reranker | p50 **${percentile(steady, 50).toFixed(1)} ms**, p95 **${percentile(steady, 95).toFixed(1)} ms** |`,
  ...[...byQuery].map(
    ([q, ms]) =>
      `| steady recall of "${q}" (${ms.length} of the 200) | p50 ${percentile(ms, 50).toFixed(1)} ms, p95 ${percentile(ms, 95).toFixed(1)} ms |`,
  ),
  `| steady recall's stages (medians of the 200, arms as ms from the start) | arms ${median((t) => t.arms)} (${arms
    .map((a) => `${a} ${median((t) => t.perArm[a])}`)
    .join(', ')}), fusion ${median((t) => t.fusion)}, load ${median((t) => t.load)}, budget ${median((t) => t.budget)} ms |`,
  `| resident memory: before the open, after 200 recalls | ${rssBefore.toFixed(0)} MB, ${rssMb().toFixed(0)} MB |`,
);

// 3. Consolidation batches at this size, each followed by a recall.
const batchMs: number[] = [];
const afterMs: number[] = [];
for (let i = 0; i < BATCHES; i++) {
  const t = performance.now();
  const report = await worker.runBatch(BANK);
  if (!report) break;
  batchMs.push(performance.now() - t);
  afterMs.push(await recallMs(engine, i));
}
const steadyAfter: number[] = [];
for (let i = 0; i < 100; i++) steadyAfter.push(await recallMs(engine, i));
if (batchMs.length) {
  rows.push(
    `| consolidation batch (claim of 16 facts) at ${N} facts, ${batchMs.length} batches | median **${percentile(batchMs, 50).toFixed(0)} ms**, max ${Math.max(...batchMs).toFixed(0)} ms |`,
    `| recall right after a batch / steady recall (medians) | ${percentile(afterMs, 50).toFixed(1)} / ${percentile(steadyAfter, 50).toFixed(1)} ms = **${(percentile(afterMs, 50) / percentile(steadyAfter, 50)).toFixed(2)}x** |`,
  );
}
await shutdown();
const table = ['| measure | value |', '| --- | --- |', ...rows].join('\n');
const setup =
  `embedded store (${dataDir}${retained ? '' : ', reused'}), offline GloVe, no reranker, ${N} synthetic facts in one bank; ` +
  `load average ${loadBefore} before, ${formatLoad()} after, on ${availableParallelism()} cores${stolen(ticksBefore)}${probed(probeBefore)}`;
process.stdout.write(`${setup}\n\n${table}\n`);
if (!values['no-record']) {
  const command = ['npm run bench:scale --', ...process.argv.slice(2)].join(' ');
  appendFileSync(
    join(ROOT, 'benchmarks', 'RESULTS.md'),
    `\n## Scale: ${N} facts in one bank (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${setup}\n\n${table}\n`,
  );
}
if (!values.data && existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
