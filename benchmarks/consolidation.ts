// Consolidation benchmark on LoCoMo: retains whole conversations (one item per turn, the session date as
// timestamp), each into its own bank, then drains each bank's consolidation backlog with the offline
// consolidator and measures the time to drain, the throughput (facts/s), and what came out (observations,
// evidence per observation, revisions, superseded facts). Throughput is given per wall-clock second and per CPU
// second (the latter does not depend on what else the machine runs). It also reads the observations as a person
// would (src/consolidate/quality.ts): (a) the share whose evidence shares a subject other than the two speakers,
// (b) the share whose text passes the grammar rule set, and (c) recall@10 of the questions' evidence turns with
// observations among the results against facts only (an observation covers the turns of the evidence facts its
// text shows). Appends to benchmarks/RESULTS.md.
//
//   node --import tsx benchmarks/consolidation.ts [--dataset path/to/locomo10.json] [--conversations N] [--claim N] [--no-record]
import * as chrono from 'chrono-node';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config/index.ts';
import { OfflineConsolidator } from '../src/consolidate/offline.ts';
import { grammarCheck, sharesSubject } from '../src/consolidate/quality.ts';
import { shown as shownText, statedPart } from '../src/consolidate/synthesis.ts';
import type { Fact } from '../src/core/types.ts';
import type { RetainItem } from '../src/retain/types.ts';

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

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const datasetPath = flag('dataset') ?? '../shared/datasets/locomo/locomo10.json';
const conversations = Number(flag('conversations') ?? 2);
const claimSize = flag('claim') ? Number(flag('claim')) : undefined;
/** --no-record: print the table only (for iterating), leaving RESULTS.md alone. */
const record = !args.includes('--no-record');

function itemsOf(sample: Sample): RetainItem[] {
  const out: Array<{ n: number; items: RetainItem[] }> = [];
  for (const key of Object.keys(sample.conversation)) {
    const m = /^session_(\d+)$/.exec(key);
    const turns = sample.conversation[key];
    const when = sample.conversation[`${key}_date_time`];
    const date = typeof when === 'string' ? chrono.parseDate(when) : null;
    if (!m || !Array.isArray(turns) || !date) continue;
    out.push({
      n: Number(m[1]),
      items: (turns as Turn[]).map((t) => ({
        content: t.blip_caption ? `${t.text} [shares a photo of ${t.blip_caption}]` : t.text,
        speaker: t.speaker,
        timestamp: date.toISOString(),
        context: `session ${m[1]}`,
        documentId: `session_${m[1]}`,
        metadata: { dia_id: t.dia_id },
      })),
    });
  }
  return out.sort((a, b) => a.n - b.n).flatMap((s) => s.items);
}

const pct = (n: number, of: number): string => `${((100 * n) / Math.max(1, of)).toFixed(1)}%`;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function main(): Promise<void> {
  if (!existsSync(datasetPath)) throw new Error(`LoCoMo not found at ${datasetPath}; pass --dataset <path>`);
  const data = (JSON.parse(readFileSync(datasetPath, 'utf8')) as Sample[]).slice(0, conversations);
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-bench-consolidation-'));
  const { engine, store, worker, describe } = await compose(
    loadConfig({ ...process.env, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'warn', CAIRN_WORKER: 'off' }),
    {
      consolidator: (embedder) => new OfflineConsolidator(embedder),
      worker: claimSize ? { claimSize } : {},
    },
  );
  const rows: string[] = [];
  let totalFacts = 0;
  let totalMs = 0;
  let totalCpuS = 0;
  const quality = {
    observations: 0,
    subject: 0,
    grammar: 0,
    problems: new Map<string, number>(),
    withObs: [] as number[],
    factsOnly: [] as number[],
  };
  const examples: string[] = [];
  const loadBefore = loadavg()[0];
  for (const sample of data) {
    const bankId = `locomo-${sample.sample_id}`;
    await engine.createBank({ id: bankId });
    const items = itemsOf(sample);
    const t0 = performance.now();
    for (let i = 0; i < items.length; i += 200) await engine.retain(bankId, { items: items.slice(i, i + 200) });
    const retainS = (performance.now() - t0) / 1000;
    const waiting = (await store.backlog(bankId)).waiting;
    const cpu0 = process.cpuUsage();
    const report = await worker.drain(bankId);
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    totalCpuS += cpuS;
    const after = await store.backlog(bankId);
    const observations = (await store.listFacts(bankId, { kinds: ['observation'], limit: 100_000, offset: 0 })).facts;
    let evidence = 0;
    let revisions = 0;
    for (const o of observations) {
      evidence += (await store.evidenceOf(bankId, o.id)).length;
      revisions += (await store.historyOf(bankId, o.id)).length;
    }
    // (a) and (b): every observation read as a person would.
    const speakers = new Set([sample.conversation.speaker_a, sample.conversation.speaker_b].map((n) => n.toLowerCase()));
    const evidenceOf = new Map<string, Fact[]>();
    const entityIds = new Set<string>();
    for (const o of observations) {
      const ids = (await store.evidenceOf(bankId, o.id)).map((e) => e.factId);
      const facts = await store.getFacts(bankId, ids);
      evidenceOf.set(o.id, facts);
      for (const f of facts) for (const e of f.entities) entityIds.add(e);
    }
    const entityNames = new Map((await store.getEntities(bankId, [...entityIds])).map((e) => [e.id, e.name]));
    const people = [sample.conversation.speaker_a, sample.conversation.speaker_b, ...entityNames.values()];
    for (const o of observations) {
      quality.observations++;
      const shares = sharesSubject(evidenceOf.get(o.id) ?? [], entityNames, speakers);
      if (shares) quality.subject++;
      const g = grammarCheck(o.text, people);
      if (g.ok) quality.grammar++;
      for (const p of g.problems) quality.problems.set(p, (quality.problems.get(p) ?? 0) + 1);
      if ((!shares || !g.ok) && examples.length < 12)
        examples.push(`${shares ? '' : '[no shared subject] '}${g.problems.map((p) => `[${p}] `).join('')}${o.text}`);
    }
    // (c): recall@10 with and without observations among the results.
    const diaOf = new Map<string, string>();
    for (let offset = 0; ; offset += 1000) {
      const page = await store.listFacts(bankId, { kinds: ['world', 'experience'], includeSuperseded: true, limit: 1000, offset });
      for (const f of page.facts) if (typeof f.metadata.dia_id === 'string') diaOf.set(f.id, f.metadata.dia_id);
      if (page.facts.length < 1000) break;
    }
    const shown = (o: Fact): string[] =>
      (evidenceOf.get(o.id) ?? [])
        .filter((f) => o.text.includes(statedPart(shownText(f)).replace(/[.!?;,\s]+$/u, '')))
        .map((f) => diaOf.get(f.id) ?? '');
    const queryTime = items.at(-1)?.timestamp;
    for (const qa of sample.qa) {
      const evidence = (qa.evidence ?? []).filter((e) => /^D\d+:\d+$/.test(e));
      if (![1, 2, 3, 4].includes(qa.category) || evidence.length === 0) continue;
      for (const [list, types] of [
        [quality.withObs, undefined],
        [quality.factsOnly, ['world', 'experience']],
      ] as const) {
        const res = await engine.recall(bankId, {
          query: qa.question,
          limit: 10,
          maxTokens: 100_000,
          queryTime,
          ...(types ? { types: [...types] } : {}),
        });
        const turns = new Set<string>();
        for (const r of res.results) {
          if (r.kind === 'observation') {
            const [o] = await store.getFacts(bankId, [r.id]);
            if (o) for (const d of shown(o)) turns.add(d);
          } else turns.add(diaOf.get(r.id) ?? '');
        }
        list.push(evidence.filter((e) => turns.has(e)).length / evidence.length);
      }
    }
    const superseded =
      (await store.listFacts(bankId, { kinds: ['world', 'experience'], includeSuperseded: true, limit: 1, offset: 0 })).total -
      (await store.listFacts(bankId, { kinds: ['world', 'experience'], limit: 1, offset: 0 })).total;
    totalFacts += report.consolidated;
    totalMs += report.ms;
    rows.push(
      `| ${sample.sample_id} | ${items.length} | ${waiting} | ${retainS.toFixed(1)} s | ${(report.ms / 1000).toFixed(2)} s | ${(report.consolidated / (report.ms / 1000)).toFixed(0)} | ${(report.consolidated / cpuS).toFixed(0)} | ` +
        `${observations.length} | ${(evidence / Math.max(1, observations.length)).toFixed(2)} | ${revisions} | ${superseded} | ${after.waiting} | ${after.failed} |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
  const table = [
    '| conversation | turns | facts waiting after retain | retain time | time to drain | facts/s | facts/CPU-s | observations | evidence/observation | revisions | superseded facts | left waiting | dead letters |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Offline consolidation throughput: **${(totalFacts / (totalMs / 1000)).toFixed(0)} facts/s** wall clock, ${(totalFacts / totalCpuS).toFixed(0)} facts per CPU-second ` +
      `(${totalFacts} facts in ${(totalMs / 1000).toFixed(2)} s; claim size ${worker.options.claimSize}, batch size ${worker.options.context.batchSize}; ` +
      `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after, on ${cpus().length} cores).`,
    '',
    `Observations read as a person would, over ${quality.observations} observations: ` +
      `(a) evidence shares a subject other than the two speakers **${pct(quality.subject, quality.observations)}** (target 90%); ` +
      `(b) text passes the grammar checks **${pct(quality.grammar, quality.observations)}** (target 98%; failures: ${[...quality.problems].map(([p, n]) => `${p} ${n}`).join(', ') || 'none'}); ` +
      `(c) LoCoMo evidence recall@10 (categories 1-4, ${quality.withObs.length} questions) with observations in the results **${mean(quality.withObs).toFixed(3)}**, facts only **${mean(quality.factsOnly).toFixed(3)}**.`,
    ...(examples.length
      ? ['', 'Observations that failed a check (first 12):', '', ...examples.map((e) => `- ${e.replace(/\|/g, '\\|')}`)]
      : []),
  ].join('\n');
  process.stdout.write(`${describe}\n${table}\n`);
  const results = new URL('./RESULTS.md', import.meta.url);
  if (record) {
    if (!existsSync(results)) writeFileSync(results, '# Benchmark results\n');
    const command = `node --import tsx benchmarks/consolidation.ts ${args.join(' ')}`.trim();
    appendFileSync(
      results,
      `\n## Consolidation on LoCoMo (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${describe}; consolidator: offline\n\n${table}\n`,
    );
  }
  await worker.stop();
  await engine.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
