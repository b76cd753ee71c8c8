// Delete benchmark: what deleting a large document and a large bank costs, through the HTTP API of a real `cairn serve`
// in its default configuration (consolidation worker in process). A bank gets N synthetic facts (the scale
// generator) and one long technical document; then the document is deleted, then the bank. Per delete: seconds,
// facts removed, and the latency of recalls a second client sends to another bank every 20 ms meanwhile (a delete
// runs in steps with the event loop free between them: the longest side recall shows the longest stall). A large bank's
// DELETE answers 202 before its rows are all removed: the row says when it answered and when they were (its id can be
// created again).
// With --from DIR, a copy of that data directory is served instead and its bank --bank is deleted (for example the
// 1M-fact store bench:scale leaves with --data). Prints a table and appends it, with the command and the load
// average, to benchmarks/RESULTS.md.
//   npm run bench:delete -- [--facts 20000] [--doc-chars 1000000] [--from DIR --bank ID] [--no-record]
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { get, post, recallProbe, ROOT, startServer } from './beam-server.ts';
import { benchArgs, cpuProbe, cpuTicks, formatLoad, percentile, probed, stolen } from './measure.ts';
import { syntheticItems } from './synthetic.ts';
import { technicalText } from './texts.ts';

const { flag, has } = benchArgs('');
const FACTS = Number(flag('facts') ?? 20_000);
const DOC_CHARS = Number(flag('doc-chars') ?? 1_000_000);
const FROM = flag('from');
const FROM_BANK = flag('bank');
if (!Number.isInteger(FACTS) || FACTS < 0) throw new Error('--facts takes a whole number of facts (0 or more)');
if (!Number.isInteger(DOC_CHARS) || DOC_CHARS < 0) throw new Error('--doc-chars takes a whole number of characters (0 or more)');
if ((FROM === undefined) !== (FROM_BANK === undefined)) throw new Error('--from DIR and --bank ID go together');
/** Side recalls are this far apart: a stall longer than it shows in the slowest of them. */
const SIDE_EVERY_MS = 20;

const loadBefore = formatLoad();
const ticksBefore = cpuTicks();
const probeBefore = cpuProbe();
const dir = mkdtempSync(join(tmpdir(), 'cairn-deletes-'));
if (FROM) {
  process.stderr.write(`deletes: copying ${FROM} to ${dir}\n`);
  cpSync(FROM, dir, { recursive: true });
}
const server = await startServer(dir);
const rows: string[] = [];
try {
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  await call('POST', '/v1/banks', { id: 'side' });
  await call('POST', '/v1/banks/side/memories', {
    items: Array.from({ length: 50 }, (_, i) => ({ content: technicalText(2000, 1000 + i) })),
  });
  /** Recall latencies on the side bank, one every SIDE_EVERY_MS, until stopped. */
  const prober = () => recallProbe(server.url, 'side', 'How is the connection pool timeout configured?', SIDE_EVERY_MS);
  const side = ({ ms, failed }: { ms: number[]; failed: string[] }): string =>
    `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)} / ${Math.max(...ms).toFixed(0)} | ${ms.filter((x) => x > 100).length} | ${failed.length}`;

  let bank = FROM_BANK ?? 'big';
  if (!FROM) {
    await call('POST', '/v1/banks', { id: bank });
    const t0 = performance.now();
    for (let i = 0; i < FACTS; i += 500) {
      await call('POST', `/v1/banks/${bank}/memories`, { items: syntheticItems(i, Math.min(FACTS, i + 500)) });
      if ((i / 500) % 10 === 0) process.stderr.write(`deletes: ${Math.min(FACTS, i + 500)}/${FACTS} synthetic facts retained\n`);
    }
    if (DOC_CHARS > 0) {
      process.stderr.write(`deletes: retaining one document of ${DOC_CHARS} characters\n`);
      await call('POST', `/v1/banks/${bank}/memories`, { items: [{ content: technicalText(DOC_CHARS, 7), documentId: 'long-doc' }] });
    }
    rows.push(
      `| retain (${FACTS} synthetic facts, one document of ${DOC_CHARS.toLocaleString('en')} characters) | ${((performance.now() - t0) / 1000).toFixed(0)} s | | | | | |`,
    );
  } else bank = FROM_BANK as string;
  for (let i = 0; i < 5; i++) await call('POST', '/v1/banks/side/recall', { query: 'warm-up' });
  const idle = prober();
  await new Promise((r) => setTimeout(r, 3000));
  rows.push(`| (idle, no delete running) | | | | ${side(await idle())} |`);

  /** Runs one delete with the side recalls meanwhile, until `gone` says its rows are all removed (a large bank's DELETE
   * answers 202 before): its row. */
  const timed = async (label: string, path: string, facts: number, gone: () => Promise<boolean>): Promise<void> => {
    const stop = prober();
    const t = performance.now();
    const res = await fetch(`${server.url}${path}`, { method: 'DELETE' });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`DELETE ${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    const answered = (performance.now() - t) / 1000;
    while (!(await gone())) await new Promise((r) => setTimeout(r, 250));
    const seconds = (performance.now() - t) / 1000;
    const removed = Array.isArray(body.factIds) ? body.factIds.length : facts;
    const row = `| ${label} | ${answered.toFixed(1)} (${res.status}) | ${seconds.toFixed(1)} | ${removed} | ${side(await stop())} |`;
    process.stderr.write(`${row}\n`);
    rows.push(row);
  };
  const { total: bankFacts } = await get<{ total: number }>(`${server.url}/v1/banks/${bank}/facts?limit=1`);
  if (!FROM && DOC_CHARS > 0)
    await timed(
      `DELETE the document (${DOC_CHARS.toLocaleString('en')} characters)`,
      `/v1/banks/${bank}/documents/long-doc`,
      0,
      async () => true,
    );
  // Creating the id again is refused (409) until every row of the deleted bank is removed.
  const created = async (): Promise<boolean> => (await post(`${server.url}/v1/banks`, { id: bank })).status === 201;
  await timed(`DELETE the bank (${bankFacts} facts)`, `/v1/banks/${bank}`, bankFacts, created);
  await call('GET', `/v1/banks/side`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

const table = [
  '| step | answered after s (status) | rows all removed after s | facts removed | side-bank recall p50 / p95 / max ms | side recalls over 100 ms | side recalls failed |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
].join('\n');
const setup =
  `\`cairn serve\` (${server.describe || 'default configuration'}), consolidation worker in process; ${FROM ? `a copy of ${FROM}, bank ${FROM_BANK}` : `${FACTS} synthetic facts and one technical document of ${DOC_CHARS.toLocaleString('en')} characters in one bank`}; ` +
  `a second client recalls on another bank every ${SIDE_EVERY_MS} ms; load average ${loadBefore} before, ${formatLoad()} after, on ${availableParallelism()} cores${stolen(ticksBefore)}${probed(probeBefore)}`;
process.stdout.write(`${setup}\n\n${table}\n`);
if (!has('no-record')) {
  const command = ['npm run bench:delete --', ...process.argv.slice(2)].join(' ');
  appendFileSync(
    join(ROOT, 'benchmarks', 'RESULTS.md'),
    `\n## Deletes: a large document and a large bank (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${setup}\n\n${table}\n`,
  );
}
