// readsFirst: background steps on the API's thread wait while a read (a recall) is counted, not for other calls (a
// retain, which is itself such background work), and never longer than their bound.
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { Activity, readsFirst } from './activity.ts';

/** Whether `p` settles within `turns` turns of the event loop. */
async function settlesWithin(p: Promise<unknown>, turns: number): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true));
  for (let i = 0; i < turns && !settled; i++) await nextTurn();
  return settled;
}

test('a step waits while a read runs and goes on once it ends', async () => {
  const activity = new Activity();
  const pause = readsFirst(activity, { maxMs: 60_000 });
  let release!: () => void;
  const read = activity.during(() => new Promise<void>((r) => (release = r)), { read: true });
  assert.equal(activity.busyWith('reads'), true);
  const step = pause();
  assert.equal(await settlesWithin(step, 50), false, 'the step waits while the read runs');
  release();
  await read;
  assert.equal(activity.busyWith('reads'), false);
  await step; // the poll sees the quiet at once
});

test('a step does not wait for calls that are not reads', async () => {
  const activity = new Activity();
  let release!: () => void;
  const write = activity.during(() => new Promise<void>((r) => (release = r)));
  assert.equal(activity.busy, true);
  assert.equal(activity.busyWith('reads'), false);
  assert.equal(await settlesWithin(readsFirst(activity, { maxMs: 60_000 })(), 50), true);
  release();
  await write;
});

test('the wait is bounded: under a read that never ends the steps still go on', async () => {
  const activity = new Activity();
  let release!: () => void;
  const read = activity.during(() => new Promise<void>((r) => (release = r)), { read: true });
  const pause = readsFirst(activity, { maxMs: 30 });
  for (let i = 0; i < 3; i++) await pause(); // each returns after at most its bound
  release();
  await read;
});
