// The in-process consolidation worker on a thread of its own (the default): it drains what is retained through
// the API, reports its batches to the API's status, takes drains asked for through the API (one worker per bank),
// and stops with the server. CAIRN_WORKER=main keeps it on the API's event loop, as before.
import { until } from './support/poll.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config/index.ts';
import { rmSync } from 'node:fs';
import { preload } from './support/serve-process.ts';
import { startServer, tempDataDir, type TestServer } from './support/server.ts';

type Status = {
  backlog: number;
  observations: number;
  consolidated: number;
  rate: { facts: number };
  worker: { id: string; running: boolean };
  workers: Array<{ id: string; role: string; pid: number; alive: boolean }>;
};

const PEOPLE = ['Maya', 'Jon', 'Priya', 'Tomas', 'Lena', 'Omar'];
const items = (n: number, from = 0): Array<{ content: string; timestamp: string }> =>
  Array.from({ length: n }, (_, i) => {
    const k = from + i;
    return {
      content: `${PEOPLE[k % PEOPLE.length]} moved the nightly build of project ${k % 4} to runner ${k}. It now takes ${20 + k} minutes.`,
      timestamp: new Date(Date.UTC(2024, 0, 1 + k)).toISOString(),
    };
  });

describe('consolidation on its own thread', () => {
  let t: TestServer;
  const status = async (bank: string): Promise<Status> => (await t.call<Status>('GET', `/v1/banks/${bank}/consolidation`)).body;
  before(async () => {
    t = await startServer({ env: { CAIRN_WORKER: 'on', CAIRN_CONSOLIDATION_POLL_MS: '50' } });
  });
  after(async () => {
    await t.close();
  });

  test('retained facts are consolidated by the thread, whose batches show in the status', async () => {
    assert.equal((await t.call('POST', '/v1/banks', { id: 'builds' })).status, 201);
    assert.equal((await t.call('POST', '/v1/banks/builds/memories', { items: items(24) })).status, 200);
    const s = await until(
      'the backlog to drain',
      () => status('builds'),
      (x) => x.backlog === 0 && x.consolidated > 0,
      60_000,
    );
    assert.ok(s.observations > 0, 'observations were written');
    assert.equal(s.worker.running, true);
    assert.notEqual(s.worker.id, t.worker.id, "the loop runs under the thread worker's own id");
    const beat = s.workers.find((w) => w.id === s.worker.id);
    assert.ok(beat, `the thread beats for this process: ${JSON.stringify(s.workers)}`);
    assert.equal(beat.role, 'worker');
    assert.equal(beat.pid, process.pid);
    assert.equal(beat.alive, true, "the API thread sees its own process's thread as alive (same process start)");
    assert.ok(s.rate.facts > 0, "the thread reports its batches to the API process's rate meter");
    // Recall sees what the thread wrote through its own connection.
    const r = await t.call<{ results: Array<{ kind: string }> }>('POST', '/v1/banks/builds/recall', {
      query: 'How long does the nightly build take?',
      types: ['observation'],
    });
    assert.equal(r.status, 200);
    assert.ok(r.body.results.length > 0, 'observations written by the thread are recalled');
  });

  test('a drain asked for through the API goes to the thread and reports what it did', async () => {
    assert.equal((await t.call('POST', '/v1/banks', { id: 'asked' })).status, 201);
    const before = await status('asked');
    const retained = await t.call<{ result: { facts: number } }>('POST', '/v1/banks/asked/memories', { items: items(8, 100) });
    assert.equal(retained.status, 200);
    const n = retained.body.result.facts;
    const run = await t.call<{ run: { consolidated: number; batches: number }; status: Status }>(
      'POST',
      '/v1/banks/asked/consolidate?wait=true',
    );
    assert.equal(run.status, 200);
    // The loop may have taken some batches first; between them the drain and the loop consolidate everything once.
    const s = await until(
      'the backlog to drain',
      () => status('asked'),
      (x) => x.backlog === 0,
      60_000,
    );
    assert.equal(s.consolidated - before.consolidated, n);
    assert.ok(run.body.run.consolidated > 0 || run.body.run.batches === 0);
    assert.ok(run.body.run.consolidated <= n);
  });

  test('the server stops with its thread, and a restarted one consolidates what was left', async () => {
    const dataDir = t.dataDir;
    await t.stop();
    t = await startServer({ dataDir, env: { CAIRN_WORKER: 'off' } });
    const retained = await t.call<{ result: { facts: number } }>('POST', '/v1/banks/builds/memories', { items: items(6, 200) });
    assert.equal(retained.status, 200);
    assert.equal((await status('builds')).backlog, retained.body.result.facts, 'with the worker off nothing is consolidated');
    await t.stop();
    t = await startServer({ dataDir, env: { CAIRN_WORKER: 'on', CAIRN_CONSOLIDATION_POLL_MS: '50' } });
    await until(
      'the thread to consolidate what was left',
      () => status('builds'),
      (x) => x.backlog === 0,
      60_000,
    );
  });
});

describe('CAIRN_WORKER', () => {
  test('on (a thread, the default), main (the API thread) and off; anything else is refused by name', () => {
    assert.deepEqual([loadConfig({}).consolidate.embeddedWorker, loadConfig({}).consolidate.workerThread], [true, true]);
    assert.deepEqual(
      [loadConfig({ CAIRN_WORKER: 'main' }).consolidate.embeddedWorker, loadConfig({ CAIRN_WORKER: 'main' }).consolidate.workerThread],
      [true, false],
    );
    assert.equal(loadConfig({ CAIRN_WORKER: 'off' }).consolidate.embeddedWorker, false);
    assert.throws(() => loadConfig({ CAIRN_WORKER: 'yes' }), /CAIRN_WORKER 'yes' must be on, off or main/);
    assert.throws(() => loadConfig({ CAIRN_WORKER_NICE: '25' }), /CAIRN_WORKER_NICE/);
  });
});

describe('a server stopped while its consolidation thread still loads', () => {
  test('ends the thread at once: its loop never starts after "shutting down"', async () => {
    const dataDir = tempDataDir();
    const p = preload(dataDir, { CAIRN_WORKER: 'on' });
    try {
      const s = await p.go();
      // The thread composes its own store and embedder for seconds after the API listens; a stop then must not wait
      // for that only to start the loop and stop it again. The signal comes twice (as `npm start` and a terminal's
      // Ctrl-C deliver it): the second must not end the shutdown under way.
      const again = (chunk: Buffer): void => {
        if (chunk.toString('utf8').includes('shutting down')) s.child.kill('SIGTERM');
      };
      s.child.stdout?.on('data', again);
      s.child.stderr?.on('data', again);
      await p.kill('SIGTERM');
      const out = s.output();
      assert.equal(s.child.exitCode, 0, out);
      const stopping = out.indexOf('shutting down');
      assert.ok(stopping >= 0, out);
      assert.doesNotMatch(out.slice(stopping), /consolidation worker \S+ started/, 'the thread started its loop after the stop');
    } finally {
      await p.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a server stopped while it opens its store', () => {
  test('shuts down once the store is open, with exit 0, instead of dying by the signal', async () => {
    const dataDir = tempDataDir();
    const p = preload(dataDir, { CAIRN_WORKER: 'on' });
    try {
      let seen = '';
      const stopAtOpen = (chunk: Buffer): void => {
        seen += chunk.toString('utf8');
        // The store's line comes as it opens, before the server says it listens.
        if (/store: sqlite/.test(seen) && !/listening/.test(seen)) p.child.kill('SIGTERM');
      };
      p.child.stdout?.on('data', stopAtOpen);
      p.child.stderr?.on('data', stopAtOpen);
      await p.go().catch(() => undefined); // it may never listen
      await p.kill('SIGTERM');
      assert.equal(p.child.exitCode, 0, seen);
      assert.match(seen, /shutting down/);
    } finally {
      await p.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
