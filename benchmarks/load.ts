// Load benchmark: a real Cairn server (`cairn serve` as a child process: embedded store in a temporary data
// directory, default configuration with the consolidation worker in process, on 127.0.0.1 only) under concurrent
// clients for a fixed time, each sending a mix of retain, recall and thread messages to several banks. The content
// is real: long messages of the BEAM conversations (code, lists, tables), and their probing questions as queries.
// Reports errors (route, status, body), p50/p99 latency per route, throughput (requests/s, KB/s retained), then
// checks the final state through the API: every fact a retain response reported is stored and no other, one
// document per retain, and each thread holds exactly the messages sent to it. Prints a table and appends it, with
// the command and the load average, to benchmarks/RESULTS.md.
//   node --import tsx benchmarks/load.ts [--data ../shared/datasets/beam-dev] [--seconds 60] [--clients 16] [--banks 4]
//     [--seed 1] [--dry-run] [--results FILE]
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { get, loadMessages, post, ROOT, startServer, type Message } from './beam-server.ts';
import { formatLoad, percentile } from './measure.ts';
import { random } from './random.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    seconds: { type: 'string' },
    clients: { type: 'string' },
    banks: { type: 'string' },
    seed: { type: 'string' },
    results: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});
const DATA = resolve(values.data ?? join(ROOT, '..', 'shared', 'datasets', 'beam-dev'));
const SECONDS = Number(values.seconds ?? 60);
const CLIENTS = Number(values.clients ?? 16);
const BANKS = Number(values.banks ?? 4);
const SEED = Number(values.seed ?? 1);
const RESULTS = values.results ?? join(ROOT, 'benchmarks', 'RESULTS.md');
for (const [name, v] of [
  ['seconds', SECONDS],
  ['clients', CLIENTS],
  ['banks', BANKS],
] as const)
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
/** Messages shorter than this are left out: the point is what an agent's memory really receives. */
const LONG = 1000;
/** Share of each route in the mix (retain, recall, thread messages). */
const MIX = { retain: 1 / 3, recall: 1 / 3, thread: 1 / 3 };
/** Clients sharing a bank's thread: THREADS threads per bank, so concurrent appends to one thread happen. */
const THREADS = 4;

// ---- clients ----------------------------------------------------------------------------------------------------

type Route = 'retain' | 'recall' | 'thread';
const ROUTE_PATHS: Record<Route, string> = {
  retain: 'POST /v1/banks/{bank}/memories',
  recall: 'POST /v1/banks/{bank}/recall',
  thread: 'POST /v1/banks/{bank}/threads/{thread}/messages',
};

interface Tally {
  ms: Record<Route, number[]>;
  errors: Array<{ route: Route; status: string; body: string }>;
  retainedBytes: number;
  threadBytes: number;
  /** Per bank: fact ids the retain responses reported, documents retained. */
  facts: Map<string, Set<string>>;
  documents: Map<string, number>;
  /** Per "bank/thread": message ids the appends returned. */
  sent: Map<string, string[]>;
}

async function runClient(
  index: number,
  server: string,
  banks: string[],
  data: { messages: Message[]; questions: string[] },
  deadline: number,
  tally: Tally,
): Promise<void> {
  const rnd = random(SEED * 1000 + index);
  let cursor = Math.floor(rnd() * data.messages.length);
  const nextMessage = (): Message => data.messages[cursor++ % data.messages.length];
  for (let n = 0; performance.now() < deadline; n++) {
    const bank = banks[Math.floor(rnd() * banks.length)];
    const pick = rnd();
    const route: Route = pick < MIX.retain ? 'retain' : pick < MIX.retain + MIX.recall ? 'recall' : 'thread';
    const thread = `t${index % THREADS}`;
    let request: { url: string; body: unknown };
    let message: Message | null = null;
    if (route === 'retain') {
      message = nextMessage();
      const item = { content: message.content, role: message.role, timestamp: message.timestamp, documentId: `c${index}-${n}` };
      request = { url: `${server}/v1/banks/${bank}/memories`, body: { items: [item] } };
    } else if (route === 'recall') {
      request = { url: `${server}/v1/banks/${bank}/recall`, body: { query: data.questions[Math.floor(rnd() * data.questions.length)] } };
    } else {
      message = nextMessage();
      request = { url: `${server}/v1/banks/${bank}/threads/${thread}/messages`, body: { messages: [message] } };
    }
    const start = performance.now();
    let status: number;
    let text: string;
    try {
      ({ status, text } = await post(request.url, request.body));
    } catch (e) {
      tally.errors.push({
        route,
        status: 'network',
        body: e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause ?? '')}` : String(e),
      });
      continue;
    }
    tally.ms[route].push(performance.now() - start);
    if (status < 200 || status > 299) {
      tally.errors.push({ route, status: String(status), body: text.slice(0, 500) });
      continue;
    }
    const bytes = message ? Buffer.byteLength(message.content) : 0;
    if (route === 'retain') {
      tally.retainedBytes += bytes;
      const ids = (JSON.parse(text) as { result: { factIds: string[] } | null }).result?.factIds ?? [];
      const set = tally.facts.get(bank) ?? new Set<string>();
      for (const id of ids) set.add(id);
      tally.facts.set(bank, set);
      tally.documents.set(bank, (tally.documents.get(bank) ?? 0) + 1);
    } else if (route === 'thread') {
      tally.threadBytes += bytes;
      const key = `${bank}/${thread}`;
      const list = tally.sent.get(key) ?? [];
      list.push(...(JSON.parse(text) as { messages: Array<{ id: string }> }).messages.map((m) => m.id));
      tally.sent.set(key, list);
    }
  }
}

// ---- final state ------------------------------------------------------------------------------------------------

async function pages<T>(fetchPage: (offset: number) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await fetchPage(offset);
    out.push(...page);
    if (page.length < 1000) return out;
  }
}

interface BankCheck {
  bank: string;
  documentsSent: number;
  documentsStored: number;
  factsReported: number;
  factsStored: number;
  factsMissing: number;
  factsUnexpected: number;
  observations: number;
  waiting: number;
  deadLetters: number;
  threadsSent: number;
  threadsStored: number;
  threadMismatches: string[];
}

async function checkBank(server: string, bank: string, tally: Tally): Promise<BankCheck> {
  const base = `${server}/v1/banks/${bank}`;
  const stored = new Set<string>();
  for (const kind of ['world', 'experience'])
    for (const f of await pages((offset) =>
      get<{ facts: Array<{ id: string }> }>(`${base}/facts?kind=${kind}&includeSuperseded=true&limit=1000&offset=${offset}`).then(
        (r) => r.facts,
      ),
    ))
      stored.add(f.id);
  const reported = tally.facts.get(bank) ?? new Set<string>();
  const documents = await pages((offset) =>
    get<{ documents: unknown[] }>(`${base}/documents?limit=1000&offset=${offset}`).then((r) => r.documents),
  );
  const consolidation = await get<{ backlog: number; observations: number; failed: number }>(`${base}/consolidation`);
  let threadsSent = 0;
  let threadsStored = 0;
  const mismatches: string[] = [];
  for (let t = 0; t < THREADS; t++) {
    const sent = tally.sent.get(`${bank}/t${t}`) ?? [];
    threadsSent += sent.length;
    if (!sent.length) continue;
    const got = (
      await pages((offset) =>
        get<{ messages: Array<{ id: string }> }>(`${base}/threads/t${t}/messages?limit=1000&offset=${offset}`).then((r) => r.messages),
      )
    ).map((m) => m.id);
    threadsStored += got.length;
    const sentSet = new Set(sent);
    if (got.length !== sent.length || got.some((id) => !sentSet.has(id)))
      mismatches.push(`t${t}: sent ${sent.length}, stored ${got.length}`);
  }
  return {
    bank,
    documentsSent: tally.documents.get(bank) ?? 0,
    documentsStored: documents.length,
    factsReported: reported.size,
    factsStored: stored.size,
    factsMissing: [...reported].filter((id) => !stored.has(id)).length,
    factsUnexpected: [...stored].filter((id) => !reported.has(id)).length,
    observations: consolidation.observations,
    waiting: consolidation.backlog,
    deadLetters: consolidation.failed,
    threadsSent,
    threadsStored,
    threadMismatches: mismatches,
  };
}

// ---- run --------------------------------------------------------------------------------------------------------

const data = loadMessages(DATA, { minLength: LONG });
const dataDir = mkdtempSync(join(tmpdir(), 'cairn-load-'));
const loadBefore = loadavg();
const server = await startServer(dataDir);
try {
  const banks = Array.from({ length: BANKS }, (_, i) => `load-${i}`);
  for (const id of banks) {
    const { status, text } = await post(`${server.url}/v1/banks`, { id, mission: 'Remember what the user works on, decides and prefers' });
    if (status !== 201) throw new Error(`creating bank ${id}: ${status} ${text}`);
  }
  const tally: Tally = {
    ms: { retain: [], recall: [], thread: [] },
    errors: [],
    retainedBytes: 0,
    threadBytes: 0,
    facts: new Map(),
    documents: new Map(),
    sent: new Map(),
  };
  process.stderr.write(
    `load: ${CLIENTS} clients for ${SECONDS} s on ${server.url} (${data.messages.length} long messages, ${data.questions.length} queries)\n`,
  );
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => runClient(i, server.url, banks, data, deadline, tally)));
  const elapsed = (performance.now() - start) / 1000;
  const loadAfter = loadavg();
  const checks: BankCheck[] = [];
  for (const bank of banks) checks.push(await checkBank(server.url, bank, tally));

  const routes: Route[] = ['retain', 'recall', 'thread'];
  const count = (r: Route): number => tally.ms[r].length + tally.errors.filter((e) => e.route === r && e.status === 'network').length;
  const requests = routes.reduce((n, r) => n + count(r), 0);
  const fmt = (x: number): string => (Number.isNaN(x) ? '-' : x.toFixed(1));
  const routeRows = routes.map((r) => {
    const errors = tally.errors.filter((e) => e.route === r).length;
    return `| ${ROUTE_PATHS[r]} | ${count(r)} | ${errors} | ${fmt(percentile(tally.ms[r], 50))} | ${fmt(percentile(tally.ms[r], 99))} | ${(count(r) / elapsed).toFixed(1)} |`;
  });
  const groups = new Map<string, { n: number; body: string }>();
  for (const e of tally.errors) {
    const key = `${ROUTE_PATHS[e.route]} -> ${e.status}`;
    const g = groups.get(key) ?? { n: 0, body: e.body };
    g.n++;
    groups.set(key, g);
  }
  const bankRows = checks.map(
    (c) =>
      `| ${c.bank} | ${c.documentsSent} / ${c.documentsStored} | ${c.factsReported} / ${c.factsStored} | ${c.factsMissing} | ${c.factsUnexpected} | ${c.observations} | ${c.waiting} | ${c.deadLetters} | ` +
      `${c.threadsSent} / ${c.threadsStored}${c.threadMismatches.length ? ` (${c.threadMismatches.join('; ')})` : ''} |`,
  );
  const consistent = checks.every(
    (c) =>
      c.documentsSent === c.documentsStored &&
      c.factsMissing === 0 &&
      c.factsUnexpected === 0 &&
      c.threadsSent === c.threadsStored &&
      !c.threadMismatches.length,
  );
  const table = [
    '| route | requests | errors | p50 ms | p99 ms | requests/s |',
    '| --- | --- | --- | --- | --- | --- |',
    ...routeRows,
    `| all | ${requests} | ${tally.errors.length} | | | ${(requests / elapsed).toFixed(1)} |`,
    '',
    `Throughput: **${(requests / elapsed).toFixed(1)} requests/s**, **${(tally.retainedBytes / 1024 / elapsed).toFixed(1)} KB/s retained** ` +
      `(${(tally.retainedBytes / 1024 / 1024).toFixed(1)} MB in ${elapsed.toFixed(1)} s), ${(tally.threadBytes / 1024 / elapsed).toFixed(1)} KB/s of thread messages. ` +
      `Errors: **${tally.errors.length}**. Load average ${formatLoad(loadBefore)} before, ${formatLoad(loadAfter)} after, on ${cpus().length} cores.`,
    '',
    ...(groups.size
      ? [
          '| error | count | first body |',
          '| --- | --- | --- |',
          ...[...groups].map(([k, g]) => `| ${k} | ${g.n} | ${g.body.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`),
          '',
        ]
      : []),
    '| bank | documents sent / stored | facts reported by retain / stored | missing | unexpected | observations | facts waiting for consolidation | dead letters | thread messages sent / stored |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...bankRows,
    '',
    `Final state ${consistent ? '**consistent**' : '**INCONSISTENT**'}: every fact a retain response reported is stored and no other, one document per retain, ` +
      `each thread holds exactly the messages sent to it.` +
      (server.problems.length
        ? ` The server logged ${server.problems.length} warnings or errors; first: \`${server.problems[0].slice(0, 300)}\`.`
        : ' The server logged no warnings or errors.'),
  ].join('\n');
  const setup =
    `${server.describe}; ${CLIENTS} clients, ${BANKS} banks (${THREADS} threads each, shared by ${Math.max(1, CLIENTS / THREADS)} clients), ` +
    `mix retain/recall/thread messages ${MIX.retain.toFixed(2)}/${MIX.recall.toFixed(2)}/${MIX.thread.toFixed(2)}, one item or message per request; ` +
    `data: ${data.messages.length} messages of ${LONG}+ characters from ${data.conversations} BEAM conversations (${DATA}), ${data.questions.length} probing questions as queries`;
  process.stdout.write(`${setup}\n\n${table}\n`);
  if (!values['dry-run']) {
    const command = ['node --import tsx benchmarks/load.ts', ...process.argv.slice(2)].join(' ');
    appendFileSync(
      RESULTS,
      `\n## Load: concurrent retain, recall and thread messages (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${setup}\n\n${table}\n`,
    );
  }
  if (tally.errors.length || !consistent) process.exitCode = 1;
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
