// Ingest benchmark: long technical conversations (BEAM) retained through the HTTP API of a real `cairn serve`, as
// an agent would send them: one message per request, one bank per conversation, one client per bank.
//   1. worker off (CAIRN_WORKER=off): messages/s, KB/s, server CPU seconds per MB, peak resident memory;
//   2. the default configuration (consolidation worker in process, draining beside the retains): the same figures
//      and the backlog left when the last retain returned;
//   3. recall while consolidation drains: the store of step 1 (every fact waiting) served again with the worker on;
//      recall p50/p95 on one bank while the backlog drains, against the same bank's idle recall measured first by a
//      worker-off server on the same store (after warm-up recalls in both).
// Prints a table and appends it, with the command and the load average, to benchmarks/RESULTS.md.
//   npm run bench:ingest -- [--data ../shared/datasets/beam-dev] [--conversations N] [--recalls N]
//     [--drain-seconds S] [--steps 1,2,3] [--env KEY=VALUE ...] [--no-record]
//   --env sets a server variable in every step (the servers get a clean environment otherwise), e.g. to compare
//   CAIRN_EXTRACT_THREADS settings.
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { get, loadMessages, post, processUsage, ROOT, startServer, type Message, type Server } from './beam-server.ts';
import { cpuProbe, cpuTicks, formatLoad, percentile, probed, stolen } from './measure.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    conversations: { type: 'string' },
    recalls: { type: 'string' },
    'drain-seconds': { type: 'string' },
    steps: { type: 'string' },
    env: { type: 'string', multiple: true },
    'no-record': { type: 'boolean' },
  },
});
const DATA = resolve(values.data ?? join(ROOT, '..', 'shared', 'datasets', 'beam-dev'));
const CONVERSATIONS = Number(values.conversations ?? 6);
const RECALLS = Number(values.recalls ?? 300);
const DRAIN_SECONDS = Number(values['drain-seconds'] ?? 120);
const STEPS = new Set((values.steps ?? '1,2,3').split(',').map(Number));
for (const [name, v] of [
  ['conversations', CONVERSATIONS],
  ['recalls', RECALLS],
  ['drain-seconds', DRAIN_SECONDS],
] as const)
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);

const SERVER_ENV: Record<string, string> = {};
for (const pair of values.env ?? []) {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new Error(`--env takes KEY=VALUE, not ${pair}`);
  SERVER_ENV[pair.slice(0, eq)] = pair.slice(eq + 1);
}

const data = loadMessages(DATA, { conversations: CONVERSATIONS });
const bankOf = (m: Message): string => `beam-${m.conversation}`;
const banks = [...new Set(data.messages.map(bankOf))];
const totalBytes = data.messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0);

interface IngestFigures {
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  facts: number;
  /** Facts waiting for consolidation when the last retain returned. */
  waiting: number;
  retainMs: number[];
}

async function createBanks(server: Server): Promise<void> {
  for (const id of banks) {
    const { status, text } = await post(`${server.url}/v1/banks`, { id, mission: 'Remember what the user works on, decides and prefers' });
    if (status !== 201) throw new Error(`creating bank ${id}: ${status} ${text}`);
  }
}

async function waiting(server: Server): Promise<number> {
  let n = 0;
  for (const bank of banks) n += (await get<{ backlog: number }>(`${server.url}/v1/banks/${bank}/consolidation`)).backlog;
  return n;
}

/** Every message retained, one per request, each bank's in order by a client of its own. */
async function ingest(server: Server, label: string): Promise<IngestFigures> {
  await createBanks(server);
  const before = processUsage(server.pid);
  const retainMs: number[] = [];
  let facts = 0;
  let done = 0;
  const start = performance.now();
  const progress = setInterval(() => process.stderr.write(`${label}: ${done}/${data.messages.length} messages\n`), 10_000);
  try {
    await Promise.all(
      banks.map(async (bank) => {
        for (const m of data.messages.filter((x) => bankOf(x) === bank)) {
          const t = performance.now();
          const { status, text } = await post(`${server.url}/v1/banks/${bank}/memories`, {
            items: [{ content: m.content, role: m.role, timestamp: m.timestamp }],
          });
          retainMs.push(performance.now() - t);
          if (status !== 200) throw new Error(`retain into ${bank}: ${status} ${text.slice(0, 300)}`);
          facts += (JSON.parse(text) as { result: { factIds: string[] } | null }).result?.factIds.length ?? 0;
          done++;
        }
      }),
    );
  } finally {
    clearInterval(progress);
  }
  const seconds = (performance.now() - start) / 1000;
  const after = processUsage(server.pid);
  return {
    seconds,
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
    peakRssMb: after.peakRssMb,
    facts,
    waiting: await waiting(server),
    retainMs,
  };
}

/** Back-to-back recalls on one bank: latencies in ms, after `warmup` unmeasured ones. Stops early when `until` says so. */
async function recalls(server: Server, bank: string, n: number, until: () => boolean = () => false, warmup = 5): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n + warmup && !until(); i++) {
    const query = data.questions[i % data.questions.length];
    const t = performance.now();
    const { status, text } = await post(`${server.url}/v1/banks/${bank}/recall`, { query });
    if (status !== 200) throw new Error(`recall on ${bank}: ${status} ${text.slice(0, 300)}`);
    if (i >= warmup) ms.push(performance.now() - t);
  }
  return ms;
}

const rows: string[] = [];
const notes: string[] = [];
const loadBefore = loadavg();
const ticksBefore = cpuTicks();
const probeBefore = cpuProbe();
const fmt = (x: number, d = 1): string => (Number.isFinite(x) ? x.toFixed(d) : '-');
const ingestRow = (name: string, f: IngestFigures): string => {
  const mb = totalBytes / 1024 / 1024;
  return (
    `| ${name} | ${data.messages.length} | ${fmt(mb, 2)} | ${fmt(f.seconds)} | ${fmt(data.messages.length / f.seconds)} | **${fmt(totalBytes / 1024 / f.seconds)}** | ` +
    `${fmt(f.cpuSeconds / mb, 2)} | ${fmt(percentile(f.retainMs, 50))} / ${fmt(percentile(f.retainMs, 95))} | ${fmt(f.peakRssMb, 0)} | ${f.facts} | ${f.waiting} |`
  );
};
let describe = '';
const offDir = mkdtempSync(join(tmpdir(), 'cairn-ingest-off-'));
const onDir = mkdtempSync(join(tmpdir(), 'cairn-ingest-on-'));
try {
  if (STEPS.has(1) || STEPS.has(3)) {
    const server = await startServer(offDir, { ...SERVER_ENV, CAIRN_WORKER: 'off' });
    describe = server.describe;
    try {
      const f = await ingest(server, 'worker off');
      rows.push(ingestRow('worker off', f));
    } finally {
      await server.stop();
    }
  }
  if (STEPS.has(2)) {
    const server = await startServer(onDir, SERVER_ENV);
    try {
      const f = await ingest(server, 'worker on');
      rows.push(ingestRow('worker on (default)', f));
    } finally {
      await server.stop();
    }
  }
  let drainLine = '';
  if (STEPS.has(3)) {
    const bank = banks[0];
    // Idle first: the same store, nothing consolidating (worker off), recall warmed up.
    const idleServer = await startServer(offDir, { ...SERVER_ENV, CAIRN_WORKER: 'off' });
    let idle: number[];
    try {
      idle = await recalls(idleServer, bank, RECALLS);
    } finally {
      await idleServer.stop();
    }
    const server = await startServer(offDir, SERVER_ENV);
    try {
      const backlogAtStart = await waiting(server);
      let backlog = backlogAtStart;
      const deadline = performance.now() + DRAIN_SECONDS * 1000;
      let polling = true;
      const poller = (async () => {
        while (polling) {
          backlog = await waiting(server);
          if (backlog === 0) break;
          await new Promise((r) => setTimeout(r, 10_000));
        }
      })();
      const draining = await recalls(server, bank, 100_000, () => backlog === 0 || performance.now() > deadline);
      polling = false;
      await poller;
      const drained = backlogAtStart - (await waiting(server));
      const ratio = percentile(draining, 95) / percentile(idle, 95);
      drainLine =
        `| recall on ${bank}, idle (worker off, same store) | ${idle.length} | ${fmt(percentile(idle, 50))} | ${fmt(percentile(idle, 95))} | ${fmt(Math.max(...idle))} |\n` +
        `| recall on ${bank} while the worker drains (${backlogAtStart} facts waiting, ${drained} consolidated meanwhile) | ${draining.length} | ` +
        `${fmt(percentile(draining, 50))} | ${fmt(percentile(draining, 95))} | ${fmt(Math.max(...draining))} |`;
      notes.push(`Recall p95 while draining / idle: **${fmt(ratio, 2)}x** (target <= 1.5x).`);
    } finally {
      await server.stop();
    }
  }
  const loadAfter = loadavg();
  const table = [
    '| configuration | messages | MB | seconds | messages/s | KB/s | server CPU s per MB | retain p50 / p95 ms | peak RSS MB | facts | facts waiting at the end |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    ...(drainLine ? ['', '| recall | recalls | p50 ms | p95 ms | max ms |', '| --- | --- | --- | --- | --- |', drainLine] : []),
    '',
    ...notes,
    `Load average ${formatLoad(loadBefore)} before, ${formatLoad(loadAfter)} after, on ${cpus().length} cores${stolen(ticksBefore)}${probed(probeBefore)}.`,
  ].join('\n');
  const setup =
    `${describe}; ${data.messages.length} messages (${(totalBytes / 1024 / 1024).toFixed(2)} MB) of ${data.conversations} BEAM conversations (${DATA}), ` +
    `one message per request, one bank and one client per conversation`;
  process.stdout.write(`${setup}\n\n${table}\n`);
  if (!values['no-record']) {
    const command = ['npm run bench:ingest --', ...process.argv.slice(2)].join(' ');
    appendFileSync(
      join(ROOT, 'benchmarks', 'RESULTS.md'),
      `\n## Ingest: long conversations through the HTTP API (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${setup}\n\n${table}\n`,
    );
  }
} finally {
  rmSync(offDir, { recursive: true, force: true });
  rmSync(onDir, { recursive: true, force: true });
}
