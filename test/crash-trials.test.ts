// Crash trials: the real `cairn serve` (consolidation worker in process) is killed with SIGKILL at seeded random
// moments while it retains (an async operation and sync requests), consolidates and buffers thread messages, 30
// times over one data directory. After each restart: the new server has resumed every unfinished operation and
// taken over the dead one's claims; every acknowledged item (an async one once its operation succeeded) and message
// is stored, none twice, and what was stored before is still there, unchanged; each fact is decided once, with one
// evidence row, no observation is made twice or lost; no thread chunk stays running. Work carries over from trial
// to trial, so later kills also cut resumed work. After the last trial every operation succeeds, the backlog drains,
// and every stored item's facts are those the same item gives when retained without a crash. The seed is printed; CAIRN_CRASH_SEED=<seed> replays a run (CAIRN_CRASH_TRIALS=<n>
// runs more or fewer trials).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { allFacts, compileSources, preload, type Preloaded, type Served } from './support/serve-process.ts';

const TRIALS = Number(process.env.CAIRN_CRASH_TRIALS ?? 30);
const BANK = 'trials';
const THREADS = ['th0', 'th1', 'th2'];
const NAMES = ['Ines', 'Tariq', 'Yuki', 'Bram', 'Lotte', 'Kemal', 'Sade', 'Ravi', 'Olga', 'Paulo'];
const DOINGS = [
  'baked sourdough bread',
  'repaired an antique clock',
  'sailed a small dinghy',
  'painted watercolour birds',
  'planted chili peppers',
  'tuned a cello',
];
const PLACES = ['Porto', 'Ghent', 'Kyoto', 'Oslo', 'Lima'];
const THREAD_SETTINGS = {
  messageTokens: 200,
  bufferTokens: 50,
  blockAfter: 1.5,
  observationTokens: 0,
  observer: 'offline',
  workingMemory: { enabled: false },
};
const SERVER_ENV = { CAIRN_WORKER: 'on', CAIRN_CONSOLIDATION_CLAIM_SIZE: '4', CAIRN_CONSOLIDATION_POLL_MS: '20' };

/** mulberry32: a small seeded generator, so a failing run can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Item {
  content: string;
  timestamp: string;
  documentId: string;
}

/** What the client knows: items and messages acknowledged, those in flight at a kill (stored wholly or not at all). */
interface Ledger {
  items: Map<string, Item>;
  /** Acknowledged items: document id -> the async operation that stores it (null: stored when acknowledged). */
  acked: Map<string, string | null>;
  operations: string[];
  /** Operations seen succeeded (not asked about again). */
  succeeded: Set<string>;
  /** Per thread, every message content sent, in order, and which were acknowledged. */
  messages: Map<string, Array<{ content: string; acked: boolean }>>;
  /** Each document's facts when first seen: they must never change. */
  factsOf: Map<string, string[]>;
  /** Evidence rows (observation, fact) seen so far. */
  evidence: Set<string>;
}

let itemCount = 0;
function newItem(rand: () => number, documentId: string): Item {
  const n = itemCount++;
  const who = NAMES[Math.floor(rand() * NAMES.length)];
  return {
    content: `On day ${n + 1} ${who} ${DOINGS[Math.floor(rand() * DOINGS.length)]} in ${PLACES[Math.floor(rand() * PLACES.length)]} with ${NAMES[(n * 7) % NAMES.length]}.`,
    timestamp: new Date(Date.UTC(2024, 0, 1) + n * 3_600_000).toISOString(),
    documentId,
  };
}

/** Sends work until `stop` is set: one async retain, then sync retains and thread appends side by side. */
async function workload(s: Served, rand: () => number, trial: number, ledger: Ledger, stop: { now: boolean }): Promise<void> {
  const batch = Array.from({ length: 3 + Math.floor(rand() * 6) }, (_, j) => newItem(rand, `t${trial}-a${j}`));
  for (const it of batch) ledger.items.set(it.documentId, it);
  const sync = Array.from({ length: 40 }, (_, n) =>
    Array.from({ length: 1 + Math.floor(rand() * 2) }, (_, j) => newItem(rand, `t${trial}-s${n}-${j}`)),
  );
  const thread = THREADS[trial % THREADS.length];
  const sent = ledger.messages.get(thread) ?? [];
  ledger.messages.set(thread, sent);
  const chunks = Array.from({ length: 40 }, (_, n) =>
    Array.from(
      { length: 1 + Math.floor(rand() * 3) },
      (_, j) =>
        `Trial ${trial} note ${n}.${j}: ${NAMES[(n + j) % NAMES.length]} moved the ${DOINGS[(trial + n) % DOINGS.length]} session to week ${(n % 12) + 1}.`,
    ),
  );
  const guard = async (work: () => Promise<void>): Promise<void> => {
    try {
      await work();
    } catch (e) {
      // A request the kill cut (the connection reset, the body cut short) stays "in flight": stored wholly or not at
      // all. A wrong answer from a live server is a failure.
      if (e instanceof assert.AssertionError) throw e;
    }
  };
  await guard(async () => {
    const r = await s.call<{ operationId: string }>('POST', `/v1/banks/${BANK}/memories`, { items: batch, async: true });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    ledger.operations.push(r.body.operationId);
    for (const it of batch) ledger.acked.set(it.documentId, r.body.operationId);
  });
  await Promise.all([
    guard(async () => {
      for (const items of sync) {
        if (stop.now) return;
        for (const it of items) ledger.items.set(it.documentId, it);
        const r = await s.call('POST', `/v1/banks/${BANK}/memories`, { items });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        for (const it of items) ledger.acked.set(it.documentId, null);
      }
    }),
    guard(async () => {
      for (const contents of chunks) {
        if (stop.now) return;
        const entries = contents.map((content) => ({ content, acked: false }));
        sent.push(...entries);
        const r = await s.call(
          'POST',
          `/v1/banks/${BANK}/threads/${thread}/messages`,
          contents.map((content, j) => ({ role: j % 2 ? 'assistant' : 'user', content })),
        );
        assert.equal(r.status, 200, JSON.stringify(r.body));
        for (const e of entries) e.acked = true;
      }
    }),
  ]);
}

async function until<T>(what: string, deadline: number, probe: () => Promise<T | null>): Promise<T> {
  for (;;) {
    const got = await probe();
    if (got !== null) return got;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(50);
  }
}

type Op = { status: string; error: string | null; owner: string | null };
type Status = { backlog: number; failed: number; waiting: { claims: Array<{ workerId: string; holder: string }>; reason: string | null } };

/** One consistent read of the bank from the file (a read transaction, beside the live server's writes). */
function snapshot(dbFile: string) {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return db.transaction(() => ({
      facts: db
        .prepare('SELECT id, kind, text, document_id AS doc, consolidated_at AS done FROM facts WHERE bank_id = ?')
        .all(BANK) as Array<{
        id: string;
        kind: string;
        text: string;
        doc: string | null;
        done: string | null;
      }>,
      documents: (db.prepare('SELECT id FROM documents WHERE bank_id = ?').all(BANK) as Array<{ id: string }>).map((d) => d.id),
      decided: (
        db.prepare('SELECT fact_ids FROM observation_revisions WHERE bank_id = ?').all(BANK) as Array<{ fact_ids: string }>
      ).flatMap((r) => JSON.parse(r.fact_ids) as string[]),
      created: (
        db.prepare(`SELECT count(*) AS n FROM observation_revisions WHERE bank_id = ? AND reason = 'created'`).get(BANK) as { n: number }
      ).n,
      evidence: db.prepare('SELECT observation_id AS o, fact_id AS f FROM evidence WHERE bank_id = ?').all(BANK) as Array<{
        o: string;
        f: string;
      }>,
    }))();
  } finally {
    db.close();
  }
}

/**
 * After a restart: what the dead server left is taken over (its operations resumed by the new one, its claims
 * freed), and what is stored agrees with the ledger. `final`: also waits until every operation succeeded and the
 * backlog drained, and then every acknowledged item must be stored.
 */
async function verify(
  s: Served,
  dbFile: string,
  ledger: Ledger,
  label: string,
  final = false,
): Promise<{ facts: number; observations: number }> {
  const deadline = Date.now() + (final ? 120_000 : 20_000);
  for (const id of ledger.operations) {
    if (ledger.succeeded.has(id)) continue;
    const op = await until(`operation ${id} to be resumed`, deadline, async () => {
      const r = (await s.call<Op>('GET', `/v1/operations/${id}`)).body;
      const settled = r.status === 'succeeded' || r.status === 'failed';
      return settled || (!final && new RegExp(`-${s.pid}-[0-9a-f]{6}$`).test(r.owner ?? '')) ? r : null;
    });
    assert.notEqual(op.status, 'failed', `${label}: operation ${id} failed: ${op.error}`);
    if (op.status === 'succeeded') ledger.succeeded.add(id);
  }
  await until("the dead server's claims to be taken over", deadline, async () => {
    const r = (await s.call<Status>('GET', `/v1/banks/${BANK}/consolidation`)).body;
    assert.equal(r.failed, 0, `${label}: nothing dead-lettered`);
    if (final) return r.backlog === 0 && r.waiting.claims.length === 0 ? r : null;
    return r.waiting.claims.every((c) => c.holder === 'alive') ? r : null;
  });

  if (final)
    await until('every operation to end (sync retains cut by a kill included)', deadline, async () => {
      const db = new Database(dbFile, { readonly: true, fileMustExist: true });
      try {
        return (db.prepare(`SELECT count(*) AS n FROM operations WHERE status IN ('queued', 'running')`).get() as { n: number }).n === 0
          ? true
          : null;
      } finally {
        db.close();
      }
    });
  const snap = snapshot(dbFile);
  // Items: the acknowledged ones stored (async ones once their operation succeeded), nothing unknown, no fact twice,
  // each item whole and unchanged since first seen.
  const plain = snap.facts.filter((f) => f.kind !== 'observation');
  const observations = snap.facts.filter((f) => f.kind === 'observation');
  const byDoc = new Map<string, string[]>();
  for (const f of plain) byDoc.set(f.doc ?? '', [...(byDoc.get(f.doc ?? '') ?? []), f.text]);
  const docs = new Set(snap.documents);
  assert.equal(docs.size, snap.documents.length, `${label}: no document twice`);
  for (const [id, op] of ledger.acked)
    if (op === null || ledger.succeeded.has(op)) assert.ok(docs.has(id), `${label}: acknowledged item ${id} is stored`);
  for (const id of docs) assert.ok(ledger.items.has(id), `${label}: stored document ${id} was sent`);
  const keys = plain.map((f) => `${f.doc}\u0000${f.text}`);
  assert.equal(new Set(keys).size, keys.length, `${label}: no fact stored twice`);
  for (const id of docs) {
    const texts = (byDoc.get(id) ?? []).sort();
    assert.ok(texts.length > 0, `${label}: document ${id} has its facts`);
    const before = ledger.factsOf.get(id);
    if (before) assert.deepEqual(texts, before, `${label}: the facts of ${id} are those stored before`);
    else ledger.factsOf.set(id, texts);
  }
  for (const id of ledger.factsOf.keys()) assert.ok(docs.has(id), `${label}: ${id}, stored before, is still stored`);

  // Consolidation: a fact is decided by the step that consolidates it, so it is cited by one revision at most, with
  // one evidence row at most (the offline consolidator gives a fact to one observation; some facts it leaves out);
  // no observation made twice or lost; nothing consolidation wrote before is gone (nothing is deleted here).
  assert.equal(new Set(snap.decided).size, snap.decided.length, `${label}: no fact decided twice`);
  const ids = new Set(snap.facts.map((f) => f.id));
  const observationIds = new Set(observations.map((o) => o.id));
  const evidenced = snap.evidence.map((e) => e.f);
  assert.equal(new Set(evidenced).size, evidenced.length, `${label}: no fact with two evidence rows`);
  for (const e of snap.evidence)
    assert.ok(observationIds.has(e.o) && ids.has(e.f), `${label}: evidence row ${e.o} ${e.f} joins an observation to a fact`);
  const withEvidence = new Set(snap.evidence.map((e) => e.o));
  for (const o of observations) assert.ok(withEvidence.has(o.id), `${label}: observation ${o.id} has its evidence`);
  assert.equal(observations.length, snap.created, `${label}: no observation created twice, none lost`);
  assert.equal(new Set(observations.map((o) => o.text)).size, observations.length, `${label}: no two observations alike`);
  const pairs = new Set(snap.evidence.map((e) => `${e.o} ${e.f}`));
  for (const k of ledger.evidence) assert.ok(pairs.has(k), `${label}: evidence row ${k}, stored before, is still stored`);
  ledger.evidence = pairs;
  if (final)
    assert.ok(
      plain.every((f) => f.done !== null),
      `${label}: every fact consolidated`,
    );

  // Threads: every acknowledged message stored, none twice, in the order sent; no chunk left running.
  for (const [thread, sent] of ledger.messages) {
    const r = await s.call<{ messages: Array<{ content: string }> }>('GET', `/v1/banks/${BANK}/threads/${thread}/messages?limit=1000`);
    if (r.status === 404 && !sent.some((m) => m.acked)) continue; // its first append was cut before it was stored
    assert.equal(r.status, 200, `${label}: messages of ${thread}`);
    const stored = r.body.messages.map((m) => m.content);
    assert.ok(stored.length < 1000, 'one page holds them all');
    assert.equal(new Set(stored).size, stored.length, `${label}: no message of ${thread} stored twice`);
    const position = new Map(sent.map((m, i) => [m.content, i]));
    const order = stored.map((c) => position.get(c));
    assert.ok(
      order.every((i) => i !== undefined),
      `${label}: every message of ${thread} was sent`,
    );
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a! - b!),
      `${label}: the messages of ${thread} are in the order sent`,
    );
    for (const m of sent)
      if (m.acked) assert.ok(stored.includes(m.content), `${label}: acknowledged message of ${thread} is stored: ${m.content}`);
    const memory = await s.call<{ windows: { buffered: { observations: { status: string } } } }>(
      'GET',
      `/v1/banks/${BANK}/threads/${thread}/memory`,
    );
    assert.equal(memory.status, 200);
    assert.notEqual(
      memory.body.windows.buffered.observations.status,
      'running',
      `${label}: the chunk cut by the kill is not left running in ${thread}`,
    );
  }
  return { facts: plain.length, observations: observations.length };
}

/** What the kill interrupted, read from the file before the restart. */
function interrupted(dbFile: string): { claims: number; running: number; operations: number } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const n = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
    return {
      claims: n('SELECT count(*) AS n FROM facts WHERE claim_worker IS NOT NULL AND consolidated_at IS NULL'),
      running: n(`SELECT count(*) AS n FROM thread_memory WHERE status = 'running'`),
      operations: n(`SELECT count(*) AS n FROM operations WHERE status IN ('queued', 'running')`),
    };
  } finally {
    db.close();
  }
}

test(`crash trials: ${TRIALS} kills during retain, consolidation and thread buffering; nothing lost, nothing twice`, {
  timeout: 600_000,
}, async () => {
  const seed = Number(process.env.CAIRN_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`crash trials seed: ${seed} (replay with CAIRN_CRASH_SEED=${seed})`);
  const rand = random(seed);
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-crash-trials-'));
  const dbFile = join(dataDir, 'cairn.db');
  const ledger: Ledger = {
    items: new Map(),
    acked: new Map(),
    operations: [],
    succeeded: new Set(),
    messages: new Map(),
    factsOf: new Map(),
    evidence: new Set(),
  };
  const started = Date.now();
  const hits = { consolidation: 0, buffering: 0, operations: 0 };
  // Start-up is mostly loading code (seconds of CPU each): the servers run the sources compiled once, and two of
  // them load ahead while the current one works.
  const compiled = compileSources(mkdtempSync(join(tmpdir(), 'cairn-crash-build-')));
  const load = (): Preloaded => preload(dataDir, SERVER_ENV, compiled);
  const ahead: Preloaded[] = [load(), load()];
  let current: (Served & { kill(signal?: NodeJS.Signals): Promise<void> }) | null = null;
  const goNext = async (): Promise<Served & { kill(signal?: NodeJS.Signals): Promise<void> }> => {
    const p = ahead.shift() as Preloaded;
    ahead.push(load());
    const s = await p.go();
    return { ...s, kill: p.kill };
  };
  try {
    current = await goNext();
    assert.equal((await current.call('POST', '/v1/banks', { id: BANK, config: { threads: THREAD_SETTINGS } })).status, 201);
    for (let trial = 0; trial < TRIALS; trial++) {
      const s = current;
      const delay = 100 + Math.floor(rand() * 700);
      const stop = { now: false };
      const work = workload(s, rand, trial, ledger, stop);
      await sleep(delay);
      stop.now = true;
      await s.kill('SIGKILL');
      await work;
      const cut = interrupted(dbFile);
      hits.consolidation += cut.claims > 0 ? 1 : 0;
      hits.buffering += cut.running > 0 ? 1 : 0;
      hits.operations += cut.operations > 0 ? 1 : 0;
      const t0 = Date.now();
      current = await goNext();
      const t1 = Date.now();
      const label = `trial ${trial + 1} (seed ${seed}, killed after ${delay} ms holding ${cut.claims} claimed facts, ${cut.running} running chunks, ${cut.operations} unfinished operations)`;
      const counts = await verify(current, dbFile, ledger, label);
      console.log(
        `${label}: ${ledger.acked.size} items acknowledged, ${counts.facts} facts, ${counts.observations} observations; restart ${t1 - t0} ms, checks ${Date.now() - t1} ms; ${Math.round((Date.now() - started) / 1000)} s`,
      );
    }

    console.log(
      `kills mid-consolidation: ${hits.consolidation}, mid-buffering: ${hits.buffering}, with an async retain unfinished: ${hits.operations} (of ${TRIALS})`,
    );
    const settled = await verify(current, dbFile, ledger, `after the last trial (seed ${seed})`, true);
    console.log(
      `settled: ${ledger.acked.size} items acknowledged, ${settled.facts} facts, ${settled.observations} observations; ${Math.round((Date.now() - started) / 1000)} s`,
    );

    // Each stored item gives the facts it gives when retained without a crash (into a fresh bank).
    const stored = [...ledger.factsOf.keys()];
    const last: Served = current;
    assert.equal((await last.call('POST', '/v1/banks', { id: 'control' })).status, 201);
    for (let i = 0; i < stored.length; i += 200) {
      const r = await last.call('POST', '/v1/banks/control/memories', {
        items: stored.slice(i, i + 200).map((id) => ledger.items.get(id)),
      });
      assert.equal(r.status, 200);
    }
    const control = new Map<string, string[]>();
    for (const f of await allFacts(last, 'control')) {
      if (f.kind === 'observation') continue;
      const doc = f.source?.documentId ?? '';
      control.set(doc, [...(control.get(doc) ?? []), f.text]);
    }
    for (const id of stored)
      assert.deepEqual(ledger.factsOf.get(id), (control.get(id) ?? []).sort(), `seed ${seed}: item ${id} was stored whole`);
  } finally {
    await Promise.all([current?.kill('SIGKILL'), ...ahead.map((p) => p.kill('SIGKILL'))]);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(compiled, { recursive: true, force: true });
  }
});
