// Crash safety of async retain: the real `cairn serve` process is killed with SIGKILL while an async retain
// operation is part-way through; a new process on the same data directory resumes the operation, which then
// succeeds, and the bank ends exactly as if the retain had never been interrupted (each item stored once,
// nothing half-written, its keyword index included), compared against the same items retained without a crash.
// The resumed operation's result counts every item of the operation, those written before the crash too.
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
    assert.deepEqual(op.progress, { done: N, total: N });

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
