// CPU cost of the offline extractor alone on LoCoMo turns (one item per turn, as the recall benchmark retains
// them): CPU ms per item from process.cpuUsage(), which other processes on the machine disturb less than wall
// time. --dump FILE writes each turn's extracted facts as JSONL, to compare what two versions extract.
// Prints a table and appends it to benchmarks/RESULTS.md (not with --no-record).
//
//   node --import tsx benchmarks/extract-cpu.ts [path/to/locomo10.json] [--from F] [--conversations N]
//                                               [--dump FILE] [--no-record]
import * as chrono from 'chrono-node';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { ExtractInput } from '../src/retain/extractor.ts';
import { OfflineExtractor } from '../src/retain/offline-extractor.ts';
import { formatLoad } from './measure.ts';

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string', default: '1' },
    conversations: { type: 'string', default: '10' },
    dump: { type: 'string' },
    'no-record': { type: 'boolean', default: false },
  },
});
const datasetPath = positionals[0] ?? '../shared/datasets/locomo/locomo10.json';
if (!existsSync(datasetPath)) throw new Error(`LoCoMo not found at ${datasetPath}; pass its path as the first argument`);
const first = Number(values.from);
const samples = (JSON.parse(readFileSync(datasetPath, 'utf8')) as Sample[]).slice(first - 1, first - 1 + Number(values.conversations));

const inputs: Array<{ id: string; input: ExtractInput }> = [];
for (const sample of samples) {
  for (const key of Object.keys(sample.conversation)) {
    if (!/^session_\d+$/.test(key)) continue;
    const turns = sample.conversation[key] as Turn[];
    const when = sample.conversation[`${key}_date_time`];
    const date = typeof when === 'string' ? chrono.parseDate(when) : null;
    if (!Array.isArray(turns) || !date) continue;
    for (const t of turns) {
      const text = t.blip_caption ? `${t.text} [shares a photo of ${t.blip_caption}]` : t.text;
      inputs.push({
        id: `${sample.sample_id}/${t.dia_id}`,
        input: { bankId: 'b', text, speaker: t.speaker, fromAgent: false, timestamp: date.toISOString(), context: null },
      });
    }
  }
}

const extractor = new OfflineExtractor();
for (const { input } of inputs.slice(0, 200)) await extractor.extract(input); // warm-up: JIT and lazy lexicons
const loadBefore = formatLoad();
const dump: string[] = [];
let facts = 0;
let entities = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (const { id, input } of inputs) {
  const out = await extractor.extract(input);
  facts += out.length;
  for (const f of out) entities += f.entities.length;
  if (values.dump) dump.push(JSON.stringify({ id, facts: out }));
}
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;
const cpuMs = (cpu.user + cpu.system) / 1000;
if (values.dump) writeFileSync(values.dump, `${dump.join('\n')}\n`);

const table = [
  '| measure | value |',
  '| --- | --- |',
  `| items (turns of conversations ${first}-${first - 1 + samples.length}) | ${inputs.length} |`,
  `| facts, entity mentions | ${facts}, ${entities} |`,
  `| extraction CPU per item | ${(cpuMs / inputs.length).toFixed(3)} ms (${Math.round((inputs.length / cpuMs) * 1000)} items per CPU-second) |`,
  `| wall time | ${(wallMs / 1000).toFixed(1)} s (load average ${loadBefore} before, ${formatLoad()} after, on ${availableParallelism()} cores) |`,
].join('\n');
console.log(table);
if (!values['no-record']) {
  const command = `node --import tsx benchmarks/extract-cpu.ts ${process.argv.slice(2).join(' ')}`.trim();
  appendFileSync(
    new URL('./RESULTS.md', import.meta.url),
    `\n## Offline extraction CPU on LoCoMo (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\n${table}\n`,
  );
}
