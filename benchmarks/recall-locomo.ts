// Recall benchmark on LoCoMo: ingests each conversation into its own bank (one item per turn, the speaker,
// the session's date as timestamp, the dia_id in metadata), then measures turn-level evidence recall @1/5/10/20
// for every arm alone and for the fusion (categories 1-4), retain throughput, recall latency at LoCoMo size,
// and recall latency with N synthetic facts in one bank (--synthetic N: 100000 by default, 0 skips it, as does a
// partial run with --conversations or --from). Appends to benchmarks/RESULTS.md.
//
// Settings are chosen on conversations 1-5 and confirmed on 6-10 (never seen while tuning): the table gives fused
// recall @10 for each half separately. --from F starts at conversation F (1-based), --conversations N takes N.
// For iterating: --data DIR keeps the store there and reuses banks already retained (unchanged documents are
// skipped), --dump FILE writes each question's evidence and per-arm turn rankings as JSONL, --settings JSON overrides
// recall's tunables, --no-record leaves RESULTS.md alone.
//
//   npm run bench:recall -- [path/to/locomo10.json] [--from F] [--conversations N] [--synthetic N]
//                           [--data DIR] [--dump FILE] [--settings JSON] [--no-record]
import * as chrono from 'chrono-node';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config/index.ts';
import type { Engine } from '../src/engine.ts';
import type { RecallSettings } from '../src/recall/types.ts';
import type { RetainItem } from '../src/retain/types.ts';
import type { MemoryStore } from '../src/store/ports.ts';
import { benchArgs, formatLoad, percentile } from './measure.ts';
import { syntheticItems } from './synthetic.ts';

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Sample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: Array<{ question: string; evidence?: string[]; category: number }>;
}

const { args, flag, has, path: datasetPath } = benchArgs('../shared/datasets/locomo/locomo10.json');
const keptData = flag('data');
const dumpPath = flag('dump');
/** Overrides of recall's tunables as JSON (for tuning on the tuning half), e.g. '{"standingRank":3}'. */
const recallSettings = flag('settings') ? (JSON.parse(flag('settings') ?? '{}') as Partial<RecallSettings>) : undefined;
const record = !has('no-record');
const maxConversations = Number(flag('conversations') ?? 10);
const firstConversation = Number(flag('from') ?? 1);
/** Conversations 1..TUNING_HALF are where settings are picked; the rest is the held-out half. */
const TUNING_HALF = 5;
/** Facts in the one-bank latency measure: the 100k unless a quick partial run (--conversations, --from). */
const synthetic = Number(flag('synthetic') ?? (flag('conversations') !== undefined || flag('from') !== undefined ? 0 : 100_000));
const KS = [1, 5, 10, 20] as const;
const ARMS = ['semantic', 'keyword', 'graph', 'temporal', 'fused'] as const;
type Arm = (typeof ARMS)[number];

function sessions(sample: Sample): Array<{ n: number; date: string; turns: Turn[] }> {
  const out: Array<{ n: number; date: string; turns: Turn[] }> = [];
  for (const key of Object.keys(sample.conversation)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m) continue;
    const turns = sample.conversation[key] as Turn[];
    const when = sample.conversation[`${key}_date_time`];
    const parsed = typeof when === 'string' ? chrono.parseDate(when) : null;
    if (!Array.isArray(turns) || !parsed) continue;
    out.push({ n: Number(m[1]), date: parsed.toISOString(), turns });
  }
  return out.sort((a, b) => a.n - b.n);
}

/** Distinct turns in ranked order from a ranked list of fact ids. */
function turnsOf(ids: string[], diaOf: Map<string, string>): string[] {
  const seen: string[] = [];
  for (const id of ids) {
    const d = diaOf.get(id);
    if (d && !seen.includes(d)) seen.push(d);
  }
  return seen;
}

async function main(): Promise<void> {
  if (!existsSync(datasetPath)) throw new Error(`LoCoMo not found at ${datasetPath}; pass its path as the first argument`);
  const data = (JSON.parse(readFileSync(datasetPath, 'utf8')) as Sample[])
    .map((sample, i) => ({ sample, n: i + 1 }))
    .slice(firstConversation - 1, firstConversation - 1 + maxConversations);
  const dataDir = keptData ?? mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  if (dumpPath) writeFileSync(dumpPath, '');
  // Each conversation gets a store of its own, so its figures do not depend on which others were retained beside it
  // (BM25 statistics are per index, not per bank). No consolidation worker: observations written meanwhile (and facts
  // they supersede) would make the figures depend on timing; this measures recall over the retained facts.
  const open = (dir: string): ReturnType<typeof compose> =>
    compose(
      loadConfig({ ...process.env, CAIRN_DATA_DIR: join(dataDir, dir), CAIRN_LOG_LEVEL: 'warn', CAIRN_WORKER: 'off' }),
      recallSettings ? { recallSettings } : {},
    );
  let describe = '';
  const hits: Record<Arm, Record<number, number[]>> = Object.fromEntries(
    ARMS.map((a) => [a, Object.fromEntries(KS.map((k) => [k, []]))]),
  ) as never;
  const multiHop: Record<Arm, number[]> = Object.fromEntries(ARMS.map((a) => [a, []])) as never;
  const halves: Record<'tuning' | 'heldOut', { all: number[]; multiHop: number[] }> = {
    tuning: { all: [], multiHop: [] },
    heldOut: { all: [], multiHop: [] },
  };
  const latencies: number[] = [];
  let items = 0;
  let retainMs = 0;
  let skipped = 0;
  let questions = 0;
  for (const { sample, n: conversation } of data) {
    const half = halves[conversation <= TUNING_HALF ? 'tuning' : 'heldOut'];
    const bankId = `locomo-${sample.sample_id}`;
    const composed = await open(sample.sample_id);
    const engine = composed.engine;
    describe = composed.describe.replace(join(dataDir, sample.sample_id), join(dataDir, '<conversation>'));
    // A bank kept from an earlier run (--data) is retained again only to skip what it holds: not a throughput.
    const reused = (await engine.listBanks()).some((b) => b.id === bankId);
    if (!reused) await engine.createBank({ id: bankId });
    const valid = new Set<string>();
    const t0 = performance.now();
    for (const s of sessions(sample)) {
      const batch: RetainItem[] = s.turns.map((t) => {
        valid.add(t.dia_id);
        return {
          content: t.blip_caption ? `${t.text} [shares a photo of ${t.blip_caption}]` : t.text,
          speaker: t.speaker,
          timestamp: s.date,
          context: `session ${s.n}`,
          documentId: `session_${s.n}`,
          metadata: { dia_id: t.dia_id },
        };
      });
      await engine.retain(bankId, { items: batch });
      if (!reused) items += batch.length;
    }
    if (!reused) retainMs += performance.now() - t0;
    const diaOf = new Map<string, string>();
    for (let offset = 0; ; offset += 1000) {
      const page = await engine.memories.listFacts(bankId, { limit: 1000, offset });
      for (const f of page.facts) if (f.metadata.dia_id) diaOf.set(f.id, f.metadata.dia_id);
      if (page.facts.length < 1000) break;
    }
    const lastDate = sessions(sample).at(-1)?.date;
    for (const qa of sample.qa) {
      if (![1, 2, 3, 4].includes(qa.category)) continue;
      const evidence = (qa.evidence ?? []).filter((e) => valid.has(e));
      if (evidence.length === 0) {
        skipped++;
        continue;
      }
      questions++;
      const t = performance.now();
      const res = await engine.recall(bankId, { query: qa.question, limit: 20, maxTokens: 100_000, trace: true, queryTime: lastDate });
      latencies.push(performance.now() - t);
      const ranked: Record<Arm, string[]> = {
        fused: turnsOf(
          res.results.map((r) => r.id),
          diaOf,
        ),
        semantic: [],
        keyword: [],
        graph: [],
        temporal: [],
      };
      const arms = (res.trace as { arms?: Record<string, { hits?: Array<{ id: string }> }> } | undefined)?.arms ?? {};
      for (const a of ['semantic', 'keyword', 'graph', 'temporal'] as const)
        ranked[a] = turnsOf(
          (arms[a]?.hits ?? []).map((h) => h.id),
          diaOf,
        );
      if (dumpPath)
        appendFileSync(
          dumpPath,
          `${JSON.stringify({ conversation, question: qa.question, category: qa.category, evidence, ranked: Object.fromEntries(ARMS.map((a) => [a, ranked[a].slice(0, 100)])) })}\n`,
        );
      for (const a of ARMS)
        for (const k of KS) {
          const top = new Set(ranked[a].slice(0, k));
          const r = evidence.filter((e) => top.has(e)).length / evidence.length;
          hits[a][k].push(r);
          if (k === 10 && qa.category === 1) multiHop[a].push(r);
          if (k === 10 && a === 'fused') {
            half.all.push(r);
            if (qa.category === 1) half.multiHop.push(r);
          }
        }
    }
    await engine.close();
    process.stderr.write(`${bankId}: ${diaOf.size} facts with turns, ${questions} questions so far\n`);
  }
  const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const lines: string[] = [];
  lines.push(`| arm | @1 | @5 | @10 | @20 | multi-hop @10 |`, `| --- | --- | --- | --- | --- | --- |`);
  for (const a of ARMS)
    lines.push(`| ${a} | ${KS.map((k) => mean(hits[a][k]).toFixed(3)).join(' | ')} | ${mean(multiHop[a]).toFixed(3)} |`);
  lines.push('');
  lines.push(`| measure | value |`, `| --- | --- |`);
  const span = (from: number, to: number): string => (from === to ? `${from}` : `${from}-${to}`);
  const firstN = data[0]?.n ?? 0;
  const lastN = data.at(-1)?.n ?? 0;
  for (const [name, h, from, to] of [
    ['tuning half', halves.tuning, firstN, Math.min(lastN, TUNING_HALF)],
    ['held-out half', halves.heldOut, Math.max(firstN, TUNING_HALF + 1), lastN],
  ] as const)
    if (h.all.length)
      lines.push(
        `| fused @10, ${name} (conversations ${span(from, to)}, ${h.all.length} questions) | ${mean(h.all).toFixed(3)} (multi-hop ${mean(h.multiHop).toFixed(3)}) |`,
      );
  lines.push(`| conversations | ${data.length} |`, `| questions (cat. 1-4) | ${questions} (skipped without valid evidence: ${skipped}) |`);
  lines.push(
    items > 0
      ? `| retain throughput | ${(items / (retainMs / 1000)).toFixed(0)} items/s (${items} items; load average ${formatLoad()} after, on ${availableParallelism()} cores) |`
      : '| retain throughput | not measured (every store reused from --data) |',
  );
  lines.push(
    `| recall latency at LoCoMo size (trace on) | p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms |`,
  );
  if (synthetic > 0) {
    const { engine, store } = await open('synthetic');
    lines.push(...(await syntheticLatency(engine, store, synthetic)));
    await engine.close();
  }
  const table = lines.join('\n');
  process.stdout.write(`${describe}\n${table}\n`);
  if (record) {
    const results = new URL('./RESULTS.md', import.meta.url);
    if (!existsSync(results)) writeFileSync(results, '# Benchmark results\n');
    const command = `npm run bench:recall -- ${args.join(' ')}`.trim();
    appendFileSync(
      results,
      `\n## Recall on LoCoMo (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${describe}\n\n${table}\n`,
    );
  }
  if (!keptData) rmSync(dataDir, { recursive: true, force: true });
}

/** Recall latency with n synthetic facts in one bank (one sentence per item, varied names, places, topics), measured
 * once the bank's vector index is ready (its HNSW graph built in the background) and after one cold recall. */
async function syntheticLatency(engine: Engine, store: MemoryStore, n: number): Promise<string[]> {
  const bankId = 'synthetic';
  await engine.createBank({ id: bankId });
  const loadBefore = formatLoad();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 500) {
    const batch = syntheticItems(i, Math.min(n, i + 500));
    await engine.retain(bankId, { items: batch });
    if ((i / 500) % 20 === 0) process.stderr.write(`synthetic: ${i + batch.length}/${n} (load ${formatLoad()})\n`);
  }
  const retainS = (performance.now() - t0) / 1000;
  const loadAfterRetain = formatLoad();
  // Steady state: wait for the vector index (an HNSW graph past 20k vectors, built off the main thread).
  const tWarm = performance.now();
  const vectors = store.vectors as { warm?: (bank: string) => Promise<{ mode: string } | null> };
  const index = (await vectors.warm?.(bankId)) ?? null;
  const warmS = (performance.now() - tWarm) / 1000;
  const queries = [
    'What did Ava buy?',
    'Who visited Kyoto with Ben?',
    'jazz piano',
    'What happened last June?',
    'Tell me about the marathon',
  ];
  const tCold = performance.now();
  await engine.recall(bankId, { query: queries[0], queryTime: '2024-01-01T00:00:00Z' });
  const coldMs = performance.now() - tCold;
  const loadBeforeRecall = formatLoad();
  const lat: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await engine.recall(bankId, { query: queries[i % queries.length], queryTime: '2024-01-01T00:00:00Z' });
    lat.push(performance.now() - t);
  }
  return [
    `| synthetic retain (${n} items, one fact each) | ${(n / retainS).toFixed(0)} items/s (load average ${loadBefore} before, ${loadAfterRetain} after, on ${availableParallelism()} cores) |`,
    `| vector index after the synthetic retain | ${index?.mode ?? 'n/a'}, ready ${warmS.toFixed(1)} s after the last write |`,
    `| first recall at ${n} facts (vector index ready) | ${coldMs.toFixed(0)} ms |`,
    `| recall latency at ${n} facts in one bank (200 queries, steady state) | p50 ${percentile(lat, 50).toFixed(1)} ms, p95 ${percentile(lat, 95).toFixed(1)} ms (load average ${loadBeforeRecall} before, ${formatLoad()} after) |`,
  ];
}

await main();
