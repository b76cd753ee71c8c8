// Crash safety: a worker process killed with SIGKILL in the middle of a batch loses nothing and applies nothing
// twice. It dies holding a claim under the default two-minute lease; a restarted process sees it dead at once (its
// pid is gone), says so in the status, and takes the claim over within seconds, not minutes. Every fact ends
// consolidated exactly once: one decision and one evidence link per fact, no duplicate observation, nothing
// dead-lettered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsolidationStatus } from '../src/consolidate/status.ts';
import { openEngine } from './support/consolidation.ts';
import { TEST_CACHE_DIR } from './support/server.ts';

const CHILD = fileURLToPath(new URL('./support/consolidation-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOPICS = [
  'bakes sourdough bread',
  'repairs antique clocks',
  'sails a small dinghy',
  'paints watercolour birds',
  'grows chili peppers',
  'plays the cello',
];
const NAMES = ['Ines', 'Tariq', 'Yuki', 'Bram', 'Lotte', 'Kemal', 'Sade', 'Ravi', 'Olga', 'Paulo'];
const N = 48;

test('kill -9 during consolidation, restart: the claim is taken over at once, the status says why facts wait, every fact consolidated exactly once', async () => {
  const setup = await openEngine();
  const { dataDir } = setup;
  await setup.engine.createBank({ id: 'crash' });
  await setup.engine.retain('crash', {
    items: Array.from({ length: N }, (_, i) => ({
      content: `${NAMES[i % 10]} ${TOPICS[(i * 7) % 6]} every ${['morning', 'evening', 'weekend'][i % 3]}.`,
      timestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
    })),
  });
  await setup.stop();

  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    env: {
      ...process.env,
      CAIRN_DATA_DIR: dataDir,
      CAIRN_CACHE_DIR: TEST_CACHE_DIR,
      CAIRN_LOG_LEVEL: 'error',
      CAIRN_WORKER_ID: 'doomed',
      CAIRN_CONSOLIDATION_CLAIM_SIZE: '4',
      CAIRN_CONSOLIDATION_POLL_MS: '20',
      CAIRN_TEST_APPLY_DELAY_MS: '150',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let claims = 0;
  const killedMidBatch = new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      claims += (chunk.match(/claimed/g) ?? []).length;
      // Three batches applied, the fourth claimed and paused before its apply: kill it there.
      if (claims >= 4 && child.exitCode === null && !child.killed) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  const exited = once(child, 'exit');
  await Promise.race([killedMidBatch, exited, sleep(60_000, undefined, { ref: false })]);
  const [, signal] = await exited;
  assert.equal(signal, 'SIGKILL', 'the worker was killed, not finished');

  const t = await openEngine({ dataDir, attach: { worker: { workerId: 'survivor', claimSize: 8 } } });
  try {
    const atKill = await t.store.backlog('crash');
    assert.ok(atKill.consolidated > 0 && atKill.consolidated < N, `killed mid-way (${atKill.consolidated} of ${N} done)`);
    const held = t.store.db
      .prepare(`SELECT count(*) AS n, max(claim_until) AS until FROM facts WHERE claim_worker = 'doomed' AND consolidated_at IS NULL`)
      .get() as {
      n: number;
      until: string;
    };
    assert.ok(held.n > 0, 'the killed worker died holding a claim');
    assert.ok(Date.parse(held.until) - Date.now() > 60_000, 'under a lease that runs for a minute more at least');

    // This process runs no worker loop: before anything runs, the status says who holds what, and that it is dead.
    const before = await t.call<ConsolidationStatus>('GET', '/v1/banks/crash/consolidation');
    assert.equal(before.status, 200);
    assert.equal(before.body.backlog, N - atKill.consolidated);
    assert.deepEqual(
      before.body.waiting.claims.map((c) => [c.workerId, c.facts, c.holder]),
      [['doomed', held.n, 'dead']],
    );
    assert.match(before.body.waiting.claims[0].gone ?? '', /pid \d+ .*is gone/);
    assert.equal(before.body.waiting.claims[0].leaseUntil, held.until);
    assert.match(before.body.waiting.reason ?? '', /claimed by worker doomed, presumed dead/);
    assert.match(before.body.waiting.reason ?? '', /no worker loop is alive/);
    assert.deepEqual(
      before.body.workers.filter((w) => w.id === 'doomed').map((w) => w.alive),
      [false],
    );
    assert.equal(before.body.lastError, null);

    const run = await t.call<{ started: boolean }>('POST', '/v1/banks/crash/consolidate');
    assert.deepEqual([run.status, run.body.started], [202, true], 'a run started: it took the dead claim over');
    // Well below the two-minute lease: the dead worker's facts do not wait it out.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = (await t.call<ConsolidationStatus>('GET', '/v1/banks/crash/consolidation')).body;
      assert.ok(!s.waiting.claims.some((c) => c.workerId === 'doomed'), 'the dead claim is gone once the run started');
      const held = s.waiting.claims.filter((c) => c.holder === 'alive').reduce((n, c) => n + c.facts, 0);
      assert.equal(s.backlog, s.waiting.ready + held + s.waiting.retrying.facts, 'every waiting fact is accounted for');
      if (s.backlog === 0) {
        assert.equal(s.waiting.reason, null);
        break;
      }
      assert.ok(s.waiting.reason, 'a waiting backlog says why');
      assert.ok(Date.now() < deadline, `drained within seconds of the restart (${s.backlog} left: ${s.waiting.reason})`);
      if (!t.worker.isDraining('crash')) await t.worker.drain('crash');
      await sleep(50);
    }
    const facts = (await t.store.listFacts('crash', { kinds: ['world'], includeSuperseded: true, limit: 1000, offset: 0 })).facts;
    assert.equal(facts.length, N);
    assert.ok(
      facts.every((f) => f.consolidatedAt !== null),
      'every fact consolidated',
    );
    const decided = (
      t.store.db.prepare(`SELECT fact_ids FROM observation_revisions WHERE bank_id = 'crash'`).all() as Array<{ fact_ids: string }>
    ).flatMap((r) => JSON.parse(r.fact_ids) as string[]);
    assert.equal(decided.length, N, 'one decision per fact');
    assert.equal(new Set(decided).size, N, 'no fact decided twice');
    const evidence = t.store.db
      .prepare(`SELECT count(*) AS n, count(DISTINCT fact_id) AS d FROM evidence WHERE bank_id = 'crash'`)
      .get() as { n: number; d: number };
    assert.deepEqual([evidence.n, evidence.d], [N, N], 'one evidence link per fact');
    const created = t.store.db
      .prepare(`SELECT count(*) AS n FROM observation_revisions WHERE bank_id = 'crash' AND reason = 'created'`)
      .get() as { n: number };
    const observations = (await t.store.listFacts('crash', { kinds: ['observation'], limit: 1000, offset: 0 })).facts;
    assert.equal(observations.length, created.n, 'no observation created twice');
    assert.equal(new Set(observations.map((o) => o.text)).size, observations.length, 'no duplicate observation');
    const status = await t.store.backlog('crash');
    assert.deepEqual([status.waiting, status.failed, status.consolidated], [0, 0, N]);
  } finally {
    await t.close();
  }
});
