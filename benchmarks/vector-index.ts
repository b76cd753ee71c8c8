// Benchmarks the embedded store's vector index: exact scan vs HNSW (built in a worker, or loaded from a snapshot),
// on n clustered unit vectors in one bank, at 100-d and 384-d. Prints a table and appends it to benchmarks/RESULTS.md.
//   node --import tsx benchmarks/vector-index.ts [--n 100000] [--dim 100] [--queries 200] [--k 10] [--dry-run]
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FactFilter } from '../src/store/ports.ts';
import { openDatabase, type Db } from '../src/store/sqlite/database.ts';
import { encodeVector, SqliteVectorIndex } from '../src/store/sqlite/vectors/index.ts';
import { random } from './random.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string' },
    dim: { type: 'string' },
    queries: { type: 'string' },
    k: { type: 'string' },
    'dry-run': { type: 'boolean' }, // print only, do not append to RESULTS.md
  },
});
const N = Number(values.n ?? 100_000);
const DIMS = values.dim ? [Number(values.dim)] : [100, 384];
const QUERIES = Number(values.queries ?? 200);
const K = Number(values.k ?? 10);
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');

/** Unit vectors scattered around 200 random centres (real embeddings cluster by topic). */
function clustered(dim: number, seed: number): () => Float32Array {
  const rnd = random(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const centres = Array.from({ length: 200 }, () => Float32Array.from({ length: dim }, gauss));
  return () => {
    const c = centres[Math.floor(rnd() * centres.length)];
    const v = c.map((x) => x + gauss() * 0.6);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
}

/** One bank of n facts: 2% observations, 3% tagged "rare", all with vectors. */
function ingest(db: Db, n: number, next: () => Float32Array): void {
  const now = new Date().toISOString();
  db.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('bench', 'bench', now, now);
  const fact = db.prepare(
    `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, tags, created_at, updated_at) VALUES (?, 'bench', ?, ?, ?, ?, ?, ?)`,
  );
  const vector = db.prepare(`INSERT INTO fact_vectors (fact_rid, bank_id, vector) VALUES (?, 'bench', ?)`);
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const kind = i % 50 === 0 ? 'observation' : 'world';
      const tags = i % 33 === 0 ? '["rare"]' : '[]';
      const { lastInsertRowid } = fact.run(`f${i}`, kind, `fact ${i}`, now, tags, now, now);
      vector.run(lastInsertRowid, encodeVector(next()));
    }
  })();
}

interface Row {
  dim: number;
  index: string;
  k?: number;
  readyMs: number | null;
  p50: number;
  p95: number;
  recall: number | null;
}

async function timeQueries(index: SqliteVectorIndex, queries: Float32Array[], filter?: FactFilter, k = K) {
  const times: number[] = [];
  const answers: string[][] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const hits = await index.search('bench', q, k, filter);
    times.push(performance.now() - t0);
    answers.push(hits.map((h) => h.id));
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  return { p50: at(0.5), p95: at(0.95), answers };
}

function recallAgainst(got: string[][], truth: string[][]): number {
  let sum = 0;
  for (let i = 0; i < truth.length; i++) {
    const want = new Set(truth[i]);
    sum += truth[i].length ? got[i].filter((id) => want.has(id)).length / truth[i].length : 1;
  }
  return sum / truth.length;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await fn();
  return [value, performance.now() - t0];
}

async function benchDim(dim: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-vectors-'));
  const rows: Row[] = [];
  try {
    const file = join(dir, 'cairn.db');
    const snapshotDir = join(dir, 'vector-snapshots');
    const db = openDatabase(file);
    const next = clustered(dim, dim);
    const [, ingestMs] = await timed(async () => ingest(db, N, next));
    console.error(`${dim}-d: ingested ${N} facts in ${(ingestMs / 1000).toFixed(1)} s`);
    // Queries: perturbed stored-like vectors (near the data, as real queries are).
    const queries = Array.from({ length: QUERIES }, next);
    const observationOnly: FactFilter = { kinds: ['observation'] };
    const rareOnly: FactFilter = { tags: ['rare'] };

    // The default threshold (a graph from n·dim = 2M on), lowered to n so that small runs still get a graph.
    const hnswThreshold = Math.min(N, Math.ceil(2_000_000 / dim));
    const exact = new SqliteVectorIndex(db, { hnswThreshold: Infinity });
    const [, exactReady] = await timed(() => exact.warm('bench'));
    const truth = await timeQueries(exact, queries);
    rows.push({ dim, index: 'exact scan', readyMs: exactReady, p50: truth.p50, p95: truth.p95, recall: 1 });
    const truth100 = await timeQueries(exact, queries, undefined, 100);
    rows.push({ dim, index: 'exact scan', k: 100, readyMs: null, p50: truth100.p50, p95: truth100.p95, recall: 1 });
    const exactObs = await timeQueries(exact, queries, observationOnly);
    rows.push({ dim, index: 'exact scan, kinds=[observation] (2%)', readyMs: null, p50: exactObs.p50, p95: exactObs.p95, recall: 1 });

    const built = new SqliteVectorIndex(db, { snapshotDir, hnswThreshold });
    const [builtStats, builtReady] = await timed(() => built.warm('bench'));
    if (builtStats?.mode !== 'hnsw') throw new Error(`expected an HNSW graph, got ${JSON.stringify(builtStats)}`);
    const b = await timeQueries(built, queries);
    rows.push({
      dim,
      index: 'hnsw, built in a worker (+ snapshot)',
      readyMs: builtReady,
      p50: b.p50,
      p95: b.p95,
      recall: recallAgainst(b.answers, truth.answers),
    });
    const b100 = await timeQueries(built, queries, undefined, 100);
    rows.push({
      dim,
      index: 'hnsw',
      k: 100,
      readyMs: null,
      p50: b100.p50,
      p95: b100.p95,
      recall: recallAgainst(b100.answers, truth100.answers),
    });
    const obs = await timeQueries(built, queries, observationOnly);
    rows.push({
      dim,
      index: 'hnsw, kinds=[observation] (2%)',
      readyMs: null,
      p50: obs.p50,
      p95: obs.p95,
      recall: recallAgainst(obs.answers, exactObs.answers),
    });
    const rareTruth = await timeQueries(exact, queries, rareOnly);
    const rare = await timeQueries(built, queries, rareOnly);
    rows.push({
      dim,
      index: 'hnsw, tags=[rare] (3%)',
      readyMs: null,
      p50: rare.p50,
      p95: rare.p95,
      recall: recallAgainst(rare.answers, rareTruth.answers),
    });
    await built.close();

    // A second process starting on the same file: flat load + snapshot load (checksum, read, catch-up).
    const db2 = openDatabase(file);
    const loaded = new SqliteVectorIndex(db2, { snapshotDir, hnswThreshold });
    const [loadedStats, loadedReady] = await timed(() => loaded.warm('bench'));
    if (loadedStats?.graphSource !== 'snapshot') throw new Error(`expected a snapshot load, got ${JSON.stringify(loadedStats)}`);
    const l = await timeQueries(loaded, queries);
    rows.push({
      dim,
      index: 'hnsw, loaded from snapshot',
      readyMs: loadedReady,
      p50: l.p50,
      p95: l.p95,
      recall: recallAgainst(l.answers, truth.answers),
    });
    await loaded.close();
    await exact.close();
    db2.close();
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const loadBefore = loadavg()[0];
const rows: Row[] = [];
for (const dim of DIMS) rows.push(...(await benchDim(dim)));

const fmt = (ms: number | null, digits = 2) => (ms === null ? '' : ms.toFixed(digits));
const table = [
  '| dim | n | index | k | ready (ms) | p50 (ms) | p95 (ms) | recall@k |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.dim} | ${N} | ${r.index} | ${r.k ?? K} | ${fmt(r.readyMs, 0)} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${r.recall === null ? '' : r.recall.toFixed(3)} |`,
  ),
].join('\n');

const command = ['node --import tsx benchmarks/vector-index.ts', ...process.argv.slice(2)].join(' ');
// The load average tells whether other work shared the machine (timings inflate when it exceeds the core count).
const load = `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`;
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, node ${process.version}, ${load}`;
const section = [
  `## Vector index, ${new Date().toISOString()}`,
  '',
  `\`${command}\` (${machine}; ${QUERIES} queries; search() times include the SQL filter check;`,
  '"ready" = first load of the bank until the index is usable: flat load, plus the HNSW build or snapshot load)',
  '',
  table,
  '',
].join('\n');
console.log(section);
if (values['dry-run']) process.exit(0);
if (!existsSync(RESULTS)) writeFileSync(RESULTS, '# Benchmark results (append-only: each run adds a dated section)\n\n');
appendFileSync(RESULTS, `${section}\n`);
