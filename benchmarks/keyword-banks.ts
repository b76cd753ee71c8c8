// Benchmarks bank isolation of the embedded store's keyword index: a small bank is searched before and after a large
// bank sharing its vocabulary is written beside it. Reports whether the small bank's hits and BM25 scores stayed the
// same, its search latency beside the large bank, the large bank's own search latency and the write rate.
// Prints a table and appends it to benchmarks/RESULTS.md (or --results FILE).
//   node --import tsx benchmarks/keyword-banks.ts [--big 100000] [--small 1000] [--queries 200] [--label TEXT] [--dry-run]
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ItemWrite, Scored } from '../src/store/ports.ts';
import { SqliteStore } from '../src/store/sqlite/store.ts';
import { random } from './random.ts';
import { formatLoad, percentile } from './measure.ts';
import { bank, chunk, doc, fact, itemWrite } from '../test/conformance/fixtures.ts';

const { values } = parseArgs({
  options: {
    big: { type: 'string' },
    small: { type: 'string' },
    queries: { type: 'string' },
    label: { type: 'string' },
    results: { type: 'string' },
    'dry-run': { type: 'boolean' }, // print only, do not append
  },
});
const BIG = Number(values.big ?? 100_000);
const SMALL = Number(values.small ?? 1000);
const QUERIES = Number(values.queries ?? 200);
const K = 20;
const RESULTS = values.results ?? join(dirname(fileURLToPath(import.meta.url)), 'RESULTS.md');

/** 3000 made-up words from syllables, drawn with a Zipf-like skew (a few common, most rare), as in real text. */
const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vu', 'dor', 'pel', 'shi', 'bra', 'gon', 'fet', 'nix', 'quo', 'zam'];
const VOCABULARY = Array.from({ length: 3000 }, (_, i) => {
  const a = SYLLABLES[i % 15],
    b = SYLLABLES[Math.floor(i / 15) % 15],
    c = SYLLABLES[Math.floor(i / 225) % 15];
  return `${a}${b}${c}`;
});
function sentence(rnd: () => number): string {
  const n = 4 + Math.floor(rnd() * 12);
  return Array.from({ length: n }, () => VOCABULARY[Math.floor(VOCABULARY.length * rnd() ** 2.5)]).join(' ');
}

function items(bankId: string, n: number, seed: number): ItemWrite[] {
  const rnd = random(seed);
  return Array.from({ length: n }, (_, i) => {
    const c = chunk(bankId, `${bankId}-d${i}`, `${bankId}-c${i}`, 0, sentence(rnd));
    const f = fact(bankId, `${bankId}-f${i}`, c.text, { chunk: c });
    // Keyword search alone is measured: no vectors.
    return { ...itemWrite(bankId, doc(bankId, `${bankId}-d${i}`), [c], [{ fact: f, vector: new Float32Array(0) }]), vectors: [] };
  });
}

async function searchAll(store: SqliteStore, bankId: string, queries: string[]): Promise<{ hits: Scored[][]; ms: number[] }> {
  const hits: Scored[][] = [];
  const ms: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    hits.push(await store.keywords.searchFacts(bankId, q, K));
    ms.push(performance.now() - t);
  }
  return { hits, ms };
}

const dir = mkdtempSync(join(tmpdir(), 'cairn-keyword-banks-'));
const store = new SqliteStore({ dataDir: dir });
try {
  const rnd = random(7);
  const queries = Array.from({ length: QUERIES }, () => sentence(rnd).split(' ').slice(0, 3).join(' '));
  await store.createBank(bank('small'));
  await store.writeItems(items('small', SMALL, 1));
  await searchAll(store, 'small', queries.slice(0, 20)); // warm
  const alone = await searchAll(store, 'small', queries);

  await store.createBank(bank('big'));
  const writes = items('big', BIG, 2);
  const start = performance.now();
  for (let i = 0; i < writes.length; i += 100) await store.writeItems(writes.slice(i, i + 100));
  const writeSeconds = (performance.now() - start) / 1000;
  const loadBefore = loadavg();
  await searchAll(store, 'small', queries.slice(0, 20));
  const beside = await searchAll(store, 'small', queries);
  await searchAll(store, 'big', queries.slice(0, 20));
  const big = await searchAll(store, 'big', queries);
  const loadAfter = loadavg();

  const same = JSON.stringify(beside.hits) === JSON.stringify(alone.hits);
  const sameIds = JSON.stringify(beside.hits.map((h) => h.map((x) => x.id))) === JSON.stringify(alone.hits.map((h) => h.map((x) => x.id)));
  const fmt = (ms: number[]): string => `p50 ${percentile(ms, 50).toFixed(2)} ms, p95 ${percentile(ms, 95).toFixed(2)} ms`;
  const table = [
    '| measure | value |',
    '| --- | --- |',
    `| small bank's top ${K} (ids and scores) the same before and after the big bank was written | ${same ? 'yes' : 'no'} (ids alone: ${sameIds ? 'same' : 'different'}) |`,
    `| small bank (${SMALL} facts) keyword search, alone in the store | ${fmt(alone.ms)} |`,
    `| small bank keyword search beside a ${BIG}-fact bank | ${fmt(beside.ms)} |`,
    `| big bank (${BIG} facts) keyword search | ${fmt(big.ms)} |`,
    `| writing the big bank (store.writeItems, 100 one-fact items a call) | ${Math.round(BIG / writeSeconds)} items/s |`,
  ].join('\n');
  const command = `node --import tsx benchmarks/keyword-banks.ts ${process.argv
    .slice(2)
    .map((a) => (/\s/.test(a) ? JSON.stringify(a) : a))
    .join(' ')}`.trim();
  const setup =
    `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, node ${process.version}; ${QUERIES} queries of 3 words, k=${K}; ` +
    `load average ${formatLoad(loadBefore)} before the searches, ${formatLoad(loadAfter)} after`;
  const section = `\n## Keyword index bank isolation${values.label ? ` (${values.label})` : ''}, ${new Date().toISOString()}\n\n\`${command}\` (${setup})\n\n${table}\n`;
  console.log(section);
  if (!values['dry-run']) appendFileSync(RESULTS, section);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
