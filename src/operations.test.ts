// Operations and their holders: a process resumes the operations of dead holders, never its own (running in the
// background or awaited by a request) nor a live process's; one it was running when presumed dead stops recording.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Operations } from './operations.ts';
import { SqliteStore } from './store/sqlite/store.ts';

const bank = {
  id: 'b',
  name: 'b',
  mission: '',
  config: {},
  embedder: null,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
};

async function setup(): Promise<{ store: SqliteStore; ops: Operations; runs: string[]; release: () => void }> {
  const store = new SqliteStore({ file: ':memory:' });
  await store.createBank(bank);
  const ops = new Operations(store);
  const runs: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  ops.register('slow', async (op) => {
    runs.push(op.id);
    await gate;
    return { ok: true };
  });
  return { store, ops, runs, release };
}

test('resume never takes over an operation this process is running, awaited or in the background', async () => {
  const { store, ops, runs, release } = await setup();
  const awaited = await ops.create('b', 'slow', null, 1, 'running');
  await store.createOperation(awaited);
  const done = ops.perform(awaited, async () => {
    runs.push(awaited.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return 'sync';
  });
  const background = await ops.submit('b', 'slow', null, 1);
  assert.equal(await ops.resume(), 0, 'nothing of its own is taken over');
  release();
  assert.equal(await done, 'sync');
  await ops.idle();
  assert.deepEqual(runs.sort(), [awaited.id, background.id].sort(), 'each ran once');
  assert.equal((await store.getOperation(background.id))?.status, 'succeeded');
  await ops.close();
  await store.close();
});

test("an operation of a dead holder is taken over; the old holder's run then records nothing", async () => {
  const { store, ops, runs, release } = await setup();
  // A holder that beat once and went silent (its beat lapsed), leaving an operation running.
  await store.beat({
    id: 'gone',
    role: 'operations',
    host: 'elsewhere',
    pid: 1,
    startedAt: bank.createdAt,
    beatAt: bank.createdAt,
    aliveUntil: bank.createdAt,
  });
  const left = {
    id: 'op-left',
    bankId: 'b',
    kind: 'slow',
    status: 'running' as const,
    progress: { done: 0, total: 1 },
    input: null,
    result: null,
    error: null,
    createdAt: bank.createdAt,
    updatedAt: bank.createdAt,
    owner: 'gone',
  };
  await store.createOperation(left);
  assert.equal(await ops.resume(), 1);
  assert.equal((await store.getOperation(left.id))?.owner, ops.holder);
  assert.equal(
    await store.updateOperation({ ...left, progress: { done: 1, total: 1 } }, ['running']),
    false,
    'the old holder writes no more',
  );
  release();
  await ops.idle();
  assert.deepEqual(runs, [left.id]);
  assert.equal((await store.getOperation(left.id))?.status, 'succeeded');
  await ops.close();
  await store.close();
});
