// Crash safety of async retain: the real `cairn serve` process is killed with SIGKILL while an async retain
// operation is part-way through; a new process on the same data directory resumes the operation, which then
// succeeds, and the bank ends exactly as if the retain had never been interrupted (each item stored once,
// nothing half-written, its keyword index included), compared against the same items retained without a crash.
// The resumed operation's result counts every item of the operation, those written before the crash too, and so
// it does when the kill falls inside one long item (between the write batches of its chunks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { keywordIndexOf, keywordTable } from '../src/store/sqlite/keyword-tables.ts';
import { SqliteStore } from '../src/store/sqlite/store.ts';
import { TEST_CACHE_DIR } from './support/server.ts';
import { until } from './support/poll.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NAMES = ['Ines', 'Tariq', 'Yuki', 'Bram', 'Lotte', 'Kemal', 'Sade', 'Ravi', 'Olga', 'Paulo'];
const TOPICS = [
  'baked sourdough bread',
  'repaired an antique clock',
  'sailed a small dinghy',
  'painted watercolour birds',
  'planted chili peppers',
];
const N = 400;
const items = Array.from({ length: N }, (_, i) => ({
  content: `On day ${i + 1} I ${TOPICS[i % TOPICS.length]} in ${['Porto', 'Ghent', 'Kyoto', 'Oslo'][i % 4]} with ${NAMES[(i * 3) % 10]}.`,
  speaker: NAMES[i % 10],
  timestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
}));

interface Served {
  child: ChildProcess;
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

/** Starts `cairn serve` on a free port (embedded store in dataDir, no worker) and waits until it listens. */
async function serve(dataDir: string): Promise<Served> {
  const child = spawn(process.execPath, ['bin/cairn.mjs', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      CAIRN_DATA_DIR: dataDir,
      CAIRN_CACHE_DIR: TEST_CACHE_DIR,
      CAIRN_PORT: '0',
      CAIRN_WORKER: 'off',
      CAIRN_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      const m = /listening on (http:\/\/[^\s]+)/.exec(seen);
      if (m) resolve(m[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`cairn serve exited (${code}) before listening:\n${seen}`)));
  });
  const call = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const r = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as T };
  };
  return { child, call };
}

async function stop(s: Served, signal: NodeJS.Signals): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill(signal);
  await exited;
}

type RetainResult = { documents: number; documentsUnchanged: number; chunksProcessed: number; facts: number; factIds: string[] };
type Op = {
  id: string;
  status: string;
  progress: { done: number; total: number };
  error: string | null;
  result: RetainResult | null;
  input?: unknown;
};
type FactPage = { facts: Array<{ id: string; text: string; source: { documentId: string } | null }>; total: number };

async function allFacts(s: Served, bank: string): Promise<FactPage['facts']> {
  const out: FactPage['facts'] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await s.call<FactPage>('GET', `/v1/banks/${bank}/facts?limit=1000&offset=${offset}`);
    assert.equal(page.status, 200);
    out.push(...page.body.facts);
    if (page.body.facts.length < 1000) return out;
  }
}

test('kill -9 during an async retain, restart: the operation resumes and every item is stored exactly once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-retain-crash-'));
  let first: Served | null = null;
  let second: Served | null = null;
  try {
    first = await serve(dataDir);
    assert.equal((await first.call('POST', '/v1/banks', { id: 'crash' })).status, 201);
    const submitted = await first.call<{ operationId: string; status: string }>('POST', '/v1/banks/crash/memories', { items, async: true });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const opId = submitted.body.operationId;

    // Kill it once some, but not all, items are in.
    const deadline = Date.now() + 60_000;
    let atKill: Op | null = null;
    while (Date.now() < deadline) {
      const op = (await first.call<Op>('GET', `/v1/operations/${opId}`)).body;
      if (op.progress.done >= 20) {
        atKill = op;
        break;
      }
      await sleep(5);
    }
    await stop(first, 'SIGKILL');
    assert.ok(atKill, 'the operation made progress before the kill');
    assert.ok(atKill.progress.done < N, `killed part-way (${atKill.progress.done} of ${N} done)`);

    second = await serve(dataDir);
    let op: Op | null = null;
    while (Date.now() < deadline + 60_000) {
      op = (await second.call<Op>('GET', `/v1/operations/${opId}`)).body;
      if (op.status === 'succeeded' || op.status === 'failed') break;
      await sleep(50);
    }
    assert.equal(op?.status, 'succeeded', `resumed operation: ${JSON.stringify(op)}`);
    assert.deepEqual(op.progress, { done: N, total: N, chunks: { done: N, total: N } });

    // The same items retained without a crash, into another bank of the same process, are the reference.
    assert.equal((await second.call('POST', '/v1/banks', { id: 'control' })).status, 201);
    const control = await second.call<{ result: RetainResult }>('POST', '/v1/banks/control/memories', { items });
    assert.equal(control.status, 200, JSON.stringify(control.body));
    const [crashed, reference] = [await allFacts(second, 'crash'), await allFacts(second, 'control')];
    assert.ok(reference.length >= N, `every item gave at least one fact (${reference.length})`);
    assert.deepEqual(crashed.map((f) => f.text).sort(), reference.map((f) => f.text).sort(), 'same facts, none twice, none missing');
    assert.equal(new Set(crashed.map((f) => f.source?.documentId)).size, N, 'one document per item');

    // The result counts the whole operation, not only what the second process wrote; the input is not sent back.
    const { factIds, ...counts } = op.result!;
    const { factIds: _controlIds, ...controlCounts } = control.body.result;
    assert.deepEqual(counts, controlCounts, 'the same counts as the retain without a crash');
    assert.deepEqual([...factIds].sort(), crashed.map((f) => f.id).sort(), 'every fact of the operation, before and after the crash');
    assert.equal(op.input, undefined);

    // Each bank's keyword index holds exactly its facts and chunks, nothing half-written, so both banks rank alike.
    const store = new SqliteStore({ dataDir });
    try {
      for (const bank of ['crash', 'control']) {
        const n = keywordIndexOf(store.db, bank);
        assert.ok(n !== null);
        for (const [source, table] of [
          ['fact', 'facts'],
          ['chunk', 'chunks'],
        ] as const) {
          const indexed = store.db.prepare(`SELECT rowid AS rid FROM ${keywordTable(n, source)} ORDER BY rowid`).all();
          const stored = store.db.prepare(`SELECT rid FROM ${table} WHERE bank_id = ? ORDER BY rid`).all(bank);
          assert.deepEqual(indexed, stored, `${bank}: the ${table} in the keyword index are the ${table} in the store`);
        }
      }
      for (const query of ['sourdough Porto', 'dinghy Kyoto Yuki', 'antique clock']) {
        const [a, b] = await Promise.all(['crash', 'control'].map((bank) => store.keywords.searchFacts(bank, query, 20)));
        assert.ok(a.length > 0);
        assert.deepEqual(
          a.map((h) => h.score),
          b.map((h) => h.score),
          `${query}: the same BM25 scores in both banks`,
        );
      }
    } finally {
      await store.close();
    }
  } finally {
    if (first) await stop(first, 'SIGKILL');
    if (second) await stop(second, 'SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('kill -9 inside one long item, restart: the resumed result counts the whole item, chunks before the crash too', async () => {
  // One item of about 180 chunks: three write batches (of 64 chunks), each with a checkpoint of the operation,
  // while its progress (in items) stays at 0 until the item is done.
  const content = Array.from(
    { length: 6_000 },
    (_, i) =>
      `On day ${i + 1} I ${TOPICS[i % TOPICS.length]} in ${['Porto', 'Ghent', 'Kyoto', 'Oslo'][i % 4]} with ${NAMES[(i * 3) % 10]}.`,
  ).join(' ');
  const long = [{ content, speaker: 'Ines', timestamp: '2024-01-01T00:00:00Z' }];
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-retain-crash-long-'));
  let first: Served | null = null;
  let second: Served | null = null;
  try {
    first = await serve(dataDir);
    assert.equal((await first.call('POST', '/v1/banks', { id: 'crash' })).status, 201);
    const submitted = await first.call<{ operationId: string }>('POST', '/v1/banks/crash/memories', { items: long, async: true });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const opId = submitted.body.operationId;
    const running = first;

    // Kill it once a batch of the item's chunks is in (and its checkpoint with it), before the item is done.
    await until(
      'a batch of the long item written',
      async () => (await running.call<Op>('GET', `/v1/operations/${opId}`)).body,
      (op) => op.status !== 'running' || (op.result?.chunksProcessed ?? 0) > 0,
      60_000,
    );
    await stop(first, 'SIGKILL');
    const store = new SqliteStore({ dataDir });
    const atKill = await store.getOperation(opId).finally(() => store.close());
    assert.equal(atKill?.status, 'running', 'killed before the operation ended');
    assert.equal(atKill.progress.done, 0, 'killed inside the item');
    const before = atKill.result as RetainResult;
    assert.ok(before.chunksProcessed > 0 && before.facts > 0, `some chunks and facts written before the kill: ${before.chunksProcessed}`);

    second = await serve(dataDir);
    const resumed = second;
    const op = await until(
      'the resumed operation to end',
      async () => (await resumed.call<Op>('GET', `/v1/operations/${opId}`)).body,
      (o) => o.status === 'succeeded' || o.status === 'failed',
      120_000,
    );
    assert.equal(op.status, 'succeeded', `resumed operation: ${JSON.stringify({ ...op, result: null })}`);

    // The same item retained without a crash is the reference: the same facts, and the same counts in the result.
    assert.equal((await second.call('POST', '/v1/banks', { id: 'control' })).status, 201);
    const control = await second.call<{ result: RetainResult }>('POST', '/v1/banks/control/memories', { items: long });
    assert.equal(control.status, 200, JSON.stringify(control.body).slice(0, 400));
    assert.ok(control.body.result.chunksProcessed > before.chunksProcessed, 'the item has chunks after those written before the kill');
    const [crashed, reference] = [await allFacts(second, 'crash'), await allFacts(second, 'control')];
    assert.deepEqual(crashed.map((f) => f.text).sort(), reference.map((f) => f.text).sort(), 'same facts, none twice, none missing');
    const { factIds, ...counts } = op.result!;
    const { factIds: _controlIds, ...controlCounts } = control.body.result;
    assert.deepEqual(counts, controlCounts, 'the same counts as the retain without a crash');
    assert.equal(new Set(factIds).size, factIds.length, 'no fact id twice');
    assert.deepEqual([...factIds].sort(), crashed.map((f) => f.id).sort(), 'every fact of the item, before and after the crash');
    const ids = new Set(factIds);
    assert.deepEqual(
      before.factIds.filter((id) => !ids.has(id)),
      [],
      'the facts written before the crash are in the result',
    );
  } finally {
    if (first) await stop(first, 'SIGKILL');
    if (second) await stop(second, 'SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
