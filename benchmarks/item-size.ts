// Item-size benchmark: one long item per request through the HTTP API of a real `cairn serve` in its default
// configuration (consolidation worker in process), of growing length, each into a fresh bank: technical chat text
// (texts.ts) and a block repeated for pages (copies of a few sentences, each tying with thousands of others in every
// similarity search). Per size: facts, seconds, microseconds per character and their ratio to the smallest size's
// (1.00 is linear); then a second item of the largest size into the bank of the first; and the latency of recalls a
// second client sends to another bank every 50 ms meanwhile (what the retain costs everyone else on the server).
// Prints a table and appends it, with the command and the load average, to benchmarks/RESULTS.md.
//   npm run bench:item -- [--sizes 50000,200000,600000,1000000] [--no-record]
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { post, recallProbe, ROOT, startServer } from './beam-server.ts';
import { benchArgs, cpuProbe, formatLoad, percentile, probed } from './measure.ts';
import { repeatedText, technicalText } from './texts.ts';

const { flag, has } = benchArgs('');
const SIZES = (flag('sizes') ?? '50000,200000,600000,1000000').split(',').map(Number);
if (SIZES.some((n) => !(n >= 1000))) throw new Error('--sizes takes a comma-separated list of lengths of at least 1000');
const TEXTS = { 'technical text': technicalText, 'repeated block': repeatedText } as const;

const probeBefore = cpuProbe();
const dir = mkdtempSync(join(tmpdir(), 'cairn-item-size-'));
const server = await startServer(dir);
const rows: string[] = [];
try {
  const call = async (path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const r = await post(`${server.url}${path}`, body);
    if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return { status: r.status, body: JSON.parse(r.text) as Record<string, unknown> };
  };
  await call('/v1/banks', { id: 'side' });
  await call('/v1/banks/side/memories', {
    items: [{ content: 'Marcus moved the nightly billing export to PostgreSQL 16. Priya owns the gateway rollout.' }],
  });
  /** Recall latencies on the side bank, one every 50 ms, until stopped. */
  const prober = () => recallProbe(server.url, 'side', 'Who owns the gateway rollout?', 50);
  // Warm-up: models loaded, code compiled, before anything is timed.
  await call('/v1/banks', { id: 'warm-up' });
  for (const text of Object.values(TEXTS)) await call('/v1/banks/warm-up/memories', { items: [{ content: text(20_000, 0) }] });
  for (let i = 0; i < 5; i++) await call('/v1/banks/side/recall', { query: 'warm-up' });
  const idle = prober();
  await new Promise((r) => setTimeout(r, 3000));
  const { ms: idleMs } = await idle();
  console.log(`idle recall on the side bank: p50 ${percentile(idleMs, 50).toFixed(1)} ms, max ${Math.max(...idleMs).toFixed(1)} ms`);
  rows.push(
    `| (idle) | | | | | | ${percentile(idleMs, 50).toFixed(1)} / ${percentile(idleMs, 95).toFixed(1)} / ${Math.max(...idleMs).toFixed(0)} |`,
  );
  let bank = 0;
  for (const [kind, text] of Object.entries(TEXTS)) {
    let base = 0;
    /** Retains one item into a bank, timed, with the side bank's recalls meanwhile: its row. */
    const timed = async (label: string, id: string, size: number): Promise<void> => {
      const content = text(size, ++bank);
      const stop = prober();
      const t = performance.now();
      const r = await call(`/v1/banks/${id}/memories`, { items: [{ content }] });
      const seconds = (performance.now() - t) / 1000;
      const { ms: side } = await stop();
      const facts = (r.body.result as { facts?: number } | undefined)?.facts ?? 0;
      const perChar = (seconds * 1e6) / size;
      base ||= perChar;
      const row = `| ${label} | ${size.toLocaleString('en')} | ${facts} | ${seconds.toFixed(1)} | ${perChar.toFixed(1)} | ${(perChar / base).toFixed(2)} | ${percentile(side, 50).toFixed(1)} / ${percentile(side, 95).toFixed(1)} / ${Math.max(...side).toFixed(0)} |`;
      console.log(row);
      rows.push(row);
    };
    let id = '';
    for (const size of SIZES) {
      id = `item-${bank + 1}`;
      await call('/v1/banks', { id });
      await timed(kind, id, size);
    }
    // Another item as large into the bank of the last one: the cost per character must not grow with what the bank
    // holds (copies of the same sentences, for the repeated block).
    await timed(`${kind}, again into that bank`, id, SIZES[SIZES.length - 1]);
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

const table = [
  '| text | characters | facts | seconds | us/char | per char vs smallest | side-bank recall p50 / p95 / max ms |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
].join('\n');
const load = formatLoad();
const cpu = probed(probeBefore);
console.log(`\n${table}\n\nload average after: ${load}${cpu}`);
if (!has('no-record')) {
  appendFileSync(
    join(ROOT, 'benchmarks', 'RESULTS.md'),
    `\n## bench:item (${new Date().toISOString()})\n\n` +
      `Command: \`npm run bench:item -- ${process.argv.slice(2).join(' ')}\`. One item per request over HTTP into a fresh bank, ` +
      `default configuration (consolidation worker in process); a second client recalls on another bank every 50 ms meanwhile.\n\n` +
      `${table}\n\nLoad average after: ${load} on 2 cores${cpu}.\n`,
  );
}
