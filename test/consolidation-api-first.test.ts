// API first: a consolidation loop given the API's activity count (core/activity.ts) waits at each step of a batch
// while a recall or retain runs, and carries on once the API is quiet; the wait is bounded, so a busy API slows
// consolidation without stopping it.
import { until } from './support/poll.ts';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Activity, StepAside } from '../src/core/activity.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';

const activity = new Activity();
let waiting = 0;
let t: TestEngine;
before(async () => {
  t = await openEngine({
    attach: {
      worker: {
        beforeStep: async () => {
          waiting++;
          try {
            await activity.quiet(120_000);
          } finally {
            waiting--;
          }
        },
      },
    },
  });
});
after(async () => {
  await t.close();
});

test('a batch waits while the API is busy and goes on when it is quiet', async () => {
  await t.engine.createBank({ id: 'quiet' });
  await t.engine.retain('quiet', { items: [{ content: 'Maya moved to Lisbon in 2021. She teaches piano there.' }] });
  let release!: () => void;
  const busy = activity.during(() => new Promise<void>((r) => (release = r)));
  assert.equal(activity.busy, true);
  const run = t.worker.drain('quiet');
  await until('the batch to wait at a step', () => waiting > 0);
  assert.equal((await t.store.backlog('quiet')).consolidated, 0, 'nothing is applied while the API is busy');
  release();
  await busy;
  assert.equal(activity.busy, false);
  const report = await run;
  assert.ok(report.consolidated > 0);
  assert.equal((await t.store.backlog('quiet')).waiting, 0);
});

test('the wait is bounded: under constant activity consolidation still goes on', async () => {
  const bounded = new Activity();
  let release!: () => void;
  const busy = bounded.during(() => new Promise<void>((r) => (release = r)));
  const started = performance.now();
  await bounded.quiet(50);
  assert.ok(performance.now() - started >= 45, 'it waited while busy');
  assert.equal(bounded.busy, true);
  release();
  await busy;
  await bounded.quiet(60_000); // returns at once when quiet
});

test('counted work that fails still leaves the count', async () => {
  const a = new Activity();
  await assert.rejects(
    a.during(async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
  assert.equal(a.busy, false);
});

test('stepping aside under constant activity waits only what the work since the last step earned', async () => {
  const a = new Activity();
  let release!: () => void;
  const busy = a.during(() => new Promise<void>((r) => (release = r)));
  const aside = new StepAside(a, { waitPerWork: 3, maxMs: 1_000 });
  await aside.step(); // the first wait is the whole allowance
  const work = performance.now();
  while (performance.now() - work < 20); // 20 ms of work earns 60 ms of waiting
  const started = performance.now();
  await aside.step();
  const waited = performance.now() - started;
  assert.ok(waited >= 40 && waited < 600, `waited ${waited.toFixed(0)} ms after 20 ms of work (earned 60, never the full second)`);
  release();
  await busy;
  const quiet = performance.now();
  await aside.step();
  assert.ok(performance.now() - quiet < 200, 'a quiet API is never waited for');
});
