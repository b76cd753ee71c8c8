// Consolidation benchmark on LoCoMo: retains whole conversations (one item per turn, the session date as
// timestamp), each into its own bank, then drains each bank's consolidation backlog with the offline
// consolidator and measures the time to drain, the throughput (facts/s), and what came out (observations,
// evidence per observation, revisions, superseded facts). Throughput is given per wall-clock second and per CPU
// second (the latter does not depend on what else the machine runs). Appends to benchmarks/RESULTS.md.
//
//   node --import tsx benchmarks/consolidation.ts [--dataset path/to/locomo10.json] [--conversations N] [--claim N]
import * as chrono from 'chrono-node';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config.ts';
import { attachConsolidation } from '../src/consolidate/attach.ts';
import type { RetainItem } from '../src/retain/types.ts';

interface Turn { speaker: string; dia_id: string; text: string; blip_caption?: string }
interface Sample { sample_id: string; conversation: Record<string, unknown> }

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const datasetPath = flag('dataset') ?? '../shared/datasets/locomo/locomo10.json';
const conversations = Number(flag('conversations') ?? 2);
const claimSize = flag('claim') ? Number(flag('claim')) : undefined;

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

async function main(): Promise<void> {
  if (!existsSync(datasetPath)) throw new Error(`LoCoMo not found at ${datasetPath}; pass --dataset <path>`);
  const data = (JSON.parse(readFileSync(datasetPath, 'utf8')) as Sample[]).slice(0, conversations);
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-bench-consolidation-'));
  const { engine, describe } = await compose(loadConfig({ ...process.env, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'warn' }));
  const worker = attachConsolidation(engine, { start: false, worker: claimSize ? { claimSize } : {} });
  const rows: string[] = [];
  let totalFacts = 0;
  let totalMs = 0;
  let totalCpuS = 0;
  const loadBefore = loadavg()[0];
  for (const sample of data) {
    const bankId = `locomo-${sample.sample_id}`;
    await engine.createBank({ id: bankId });
    const items = itemsOf(sample);
    const t0 = performance.now();
    for (let i = 0; i < items.length; i += 200) await engine.retain(bankId, { items: items.slice(i, i + 200) });
    const retainS = (performance.now() - t0) / 1000;
    const waiting = (await engine.store.backlog(bankId)).waiting;
    const cpu0 = process.cpuUsage();
    const report = await worker.drain(bankId);
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    totalCpuS += cpuS;
    const after = await engine.store.backlog(bankId);
    const observations = (await engine.store.listFacts(bankId, { kinds: ['observation'], limit: 100_000, offset: 0 })).facts;
    let evidence = 0;
    let revisions = 0;
    for (const o of observations) {
      evidence += (await engine.store.evidenceOf(bankId, o.id)).length;
      revisions += (await engine.store.historyOf(bankId, o.id)).length;
    }
    const superseded = (await engine.store.listFacts(bankId, { kinds: ['world', 'experience'], includeSuperseded: true, limit: 1, offset: 0 })).total -
      (await engine.store.listFacts(bankId, { kinds: ['world', 'experience'], limit: 1, offset: 0 })).total;
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
  ].join('\n');
  process.stdout.write(`${describe}\n${table}\n`);
  const results = new URL('./RESULTS.md', import.meta.url);
  if (!existsSync(results)) writeFileSync(results, '# Benchmark results\n');
  const command = `node --import tsx benchmarks/consolidation.ts ${args.join(' ')}`.trim();
  appendFileSync(results, `\n## Consolidation on LoCoMo (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${describe}; consolidator: offline\n\n${table}\n`);
  await worker.stop();
  await engine.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
