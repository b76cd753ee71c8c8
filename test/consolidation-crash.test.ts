// Crash safety: a worker process killed with SIGKILL in the middle of a batch loses nothing and applies nothing
// twice. After a restart every fact ends consolidated exactly once: one decision and one evidence link per fact,
// no duplicate observation, nothing dead-lettered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { openEngine } from './support/consolidation.ts';
import { TEST_CACHE_DIR } from './support/server.ts';

const CHILD = fileURLToPath(new URL('./support/consolidation-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOPICS = ['bakes sourdough bread', 'repairs antique clocks', 'sails a small dinghy', 'paints watercolour birds', 'grows chili peppers', 'plays the cello'];
const NAMES = ['Ines', 'Tariq', 'Yuki', 'Bram', 'Lotte', 'Kemal', 'Sade', 'Ravi', 'Olga', 'Paulo'];
const N = 48;

test('kill -9 during consolidation, restart: every fact consolidated exactly once', async () => {
  const setup = await openEngine();
  const { dataDir } = setup;
  await setup.engine.createBank({ id: 'crash' });
  await setup.engine.retain('crash', {
    items: Array.from({ length: N }, (_, i) => ({ content: `${NAMES[i % 10]} ${TOPICS[(i * 7) % 6]} every ${['morning', 'evening', 'weekend'][i % 3]}.`, timestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString() })),
  });
  await setup.stop();

  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    env: {
      ...process.env, CAIRN_DATA_DIR: dataDir, CAIRN_CACHE_DIR: TEST_CACHE_DIR, CAIRN_LOG_LEVEL: 'error', CAIRN_WORKER_ID: 'doomed',
      CAIRN_CONSOLIDATION_CLAIM_SIZE: '4', CAIRN_CONSOLIDATION_LEASE_MS: '1500', CAIRN_CONSOLIDATION_POLL_MS: '20', CAIRN_TEST_APPLY_DELAY_MS: '150',
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
    const held = t.store.db.prepare(`SELECT count(*) AS n FROM facts WHERE claim_worker = 'doomed' AND consolidated_at IS NULL`).get() as { n: number };
    assert.ok(held.n > 0, 'the killed worker died holding a claim');
    const deadline = Date.now() + 20_000;
    while ((await t.store.backlog('crash')).waiting > 0) {
      assert.ok(Date.now() < deadline, 'drained after the lease expired');
      await t.worker.drain('crash');
      await sleep(100);
    }
    const facts = (await t.store.listFacts('crash', { kinds: ['world'], includeSuperseded: true, limit: 1000, offset: 0 })).facts;
    assert.equal(facts.length, N);
    assert.ok(facts.every((f) => f.consolidatedAt !== null), 'every fact consolidated');
    const decided = (t.store.db.prepare(`SELECT fact_ids FROM observation_revisions WHERE bank_id = 'crash'`).all() as Array<{ fact_ids: string }>).flatMap(
      (r) => JSON.parse(r.fact_ids) as string[],
    );
    assert.equal(decided.length, N, 'one decision per fact');
    assert.equal(new Set(decided).size, N, 'no fact decided twice');
    const evidence = t.store.db.prepare(`SELECT count(*) AS n, count(DISTINCT fact_id) AS d FROM evidence WHERE bank_id = 'crash'`).get() as { n: number; d: number };
    assert.deepEqual([evidence.n, evidence.d], [N, N], 'one evidence link per fact');
    const created = t.store.db.prepare(`SELECT count(*) AS n FROM observation_revisions WHERE bank_id = 'crash' AND reason = 'created'`).get() as { n: number };
    const observations = (await t.store.listFacts('crash', { kinds: ['observation'], limit: 1000, offset: 0 })).facts;
    assert.equal(observations.length, created.n, 'no observation created twice');
    assert.equal(new Set(observations.map((o) => o.text)).size, observations.length, 'no duplicate observation');
    const status = await t.store.backlog('crash');
    assert.deepEqual([status.waiting, status.failed, status.consolidated], [0, 0, N]);
  } finally {
    await t.close();
  }
});
