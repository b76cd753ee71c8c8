// Changing a bank's thread settings after threads have messages, over real HTTP on the real embedded store: a
// change of `scope` never locks a thread out nor hides its memory (a thread keeps the record holding its memory),
// the settings GET returns can be PUT back, and an oversized number is refused with the allowed maximum.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startThreadServer, type ThreadTestServer } from './support/threads.ts';
import type { MemoryItem, ThreadMessage } from '../src/threads/types.ts';

type Err = { error: { code: string; message: string } };
type Append = { recordId: string; messages: ThreadMessage[] };
type Context = { recordId: string; prefix: string; messages: ThreadMessage[]; omittedMessages: number };
type Status = { scope: string; recordId: string };

const line = (i: number) => ({
  role: i % 2 ? 'assistant' : 'user',
  content: `Note ${i}: we decided the budget for venue ${i} is ${1000 + i * 50} euros and Dana must confirm by Friday.`,
});

describe('thread settings changed after threads have messages', () => {
  let s: ThreadTestServer;
  before(async () => {
    s = await startThreadServer({ bridge: false });
    for (const id of ['s1', 'w', 'rt', 'big', 'fx']) assert.equal((await s.call('POST', '/v1/banks', { id })).status, 201);
  });
  after(async () => s.close());

  test('switching to scope resource leaves a thread without resourceId usable in its own record', async () => {
    assert.equal(
      (await s.call('POST', '/v1/banks/s1/threads/t1/messages', { role: 'user', content: 'I prefer aisle seats.' })).status,
      200,
    );
    assert.equal((await s.call('PATCH', '/v1/banks/s1/thread-settings', { scope: 'resource' })).status, 200);
    const base = '/v1/banks/s1/threads/t1';
    for (const [method, path, body] of [
      ['GET', `${base}/context`],
      ['GET', `${base}/memory`],
      ['GET', `${base}/observations`],
      ['GET', `${base}/working-memory`],
      ['POST', `${base}/remember`, { note: 'Vegetarian' }],
      ['PUT', `${base}/working-memory`, { content: '# Working memory\n' }],
      ['POST', `${base}/messages`, { role: 'user', content: 'And a window for long flights.' }],
      ['PUT', base, { settings: { scope: 'thread' } }],
      ['DELETE', `${base}/memory`],
    ] as const) {
      const r = await s.call<Err>(method, path, body);
      assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await s.call<Context>('GET', `${base}/context`)).body.recordId, 'thread:t1');
    const events = new AbortController();
    const stream = await fetch(`${s.url}${base}/events`, { signal: events.signal });
    assert.equal(stream.status, 200);
    events.abort();
    await stream.body?.cancel().catch(() => undefined);

    // A thread without messages is still asked for a resourceId, and one with it pools as configured.
    const fresh = await s.call<Err>('POST', '/v1/banks/s1/threads/t2/messages', { role: 'user', content: 'hi' });
    assert.equal(fresh.status, 400);
    assert.match(fresh.body.error.message, /resourceId/);
    const pooled = await s.call<Append>('POST', '/v1/banks/s1/threads/t2/messages', {
      resourceId: 'R9',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(pooled.body.recordId, 'resource:R9');
    // Asking explicitly for scope resource without a resourceId is refused, not silently ignored.
    const explicit = await s.call<Err>('PUT', base, { settings: { scope: 'resource' } });
    assert.equal(explicit.status, 400);
    assert.match(explicit.body.error.message, /no resourceId/);
  });

  test('switching back to scope thread keeps the observed messages in the context', async () => {
    await s.call('PATCH', '/v1/banks/w/thread-settings', {
      scope: 'resource',
      messageTokens: 50,
      observationTokens: 100,
      bufferTokens: 10,
      workingMemory: { enabled: false },
    });
    for (let i = 0; i < 7; i++) {
      const r = await s.call<Append>('POST', '/v1/banks/w/threads/w1/messages', { resourceId: 'R', messages: [line(i)] });
      assert.equal(r.body.recordId, 'resource:R');
      await s.memory.idle();
    }
    const base = '/v1/banks/w/threads/w1';
    const active = async () => (await s.call<{ items: MemoryItem[] }>('GET', `${base}/observations?status=active`)).body.items;
    const beforeItems = await active();
    assert.ok(beforeItems.length > 0, 'observations exist before the change');
    const beforeContext = (await s.call<Context>('GET', `${base}/context`)).body;

    assert.equal((await s.call('PATCH', '/v1/banks/w/thread-settings', { scope: 'thread' })).status, 200);
    const ctx = (await s.call<Context>('GET', `${base}/context`)).body;
    assert.equal(ctx.recordId, 'resource:R', 'the thread keeps the record holding its memory');
    assert.equal(ctx.prefix, beforeContext.prefix);
    assert.deepEqual(
      ctx.messages.map((m) => m.seq),
      beforeContext.messages.map((m) => m.seq),
    );
    assert.deepEqual(
      (await active()).map((i) => i.id),
      beforeItems.map((i) => i.id),
    );
    const status = (await s.call<Status>('GET', `${base}/memory`)).body;
    assert.deepEqual([status.scope, status.recordId], ['resource', 'resource:R']);
    // New appends keep going there; a thread without memory yet follows the new setting.
    assert.equal((await s.call<Append>('POST', `${base}/messages`, line(7))).body.recordId, 'resource:R');
    await s.memory.idle();
    const other = await s.call<Append>('POST', '/v1/banks/w/threads/w2/messages', { resourceId: 'R', messages: [line(0)] });
    assert.equal(other.body.recordId, 'thread:w2');

    // Other per-thread overrides are not taken for a move; an explicit move away from the memory is refused
    // with what to do; clearing lets it follow.
    const tune = await s.call<Err>('PUT', base, { settings: { messageTokens: 60 } });
    assert.equal(tune.status, 200, JSON.stringify(tune.body));
    assert.equal((await s.call<Context>('GET', `${base}/context`)).body.recordId, 'resource:R');
    const move = await s.call<Err>('PUT', base, { settings: { scope: 'thread' } });
    assert.equal(move.status, 409);
    assert.match(move.body.error.message, /already has memory in resource:R.*DELETE/);
    assert.equal((await s.call('DELETE', `${base}/memory`)).status, 200);
    const after = (await s.call<Context>('GET', `${base}/context`)).body;
    assert.equal(after.recordId, 'thread:w1');
    assert.equal(after.messages.length + after.omittedMessages, 8, 'cleared memory: every message is raw again');
  });

  test('the effective settings GET returns can be PUT (and PATCHed) back unchanged; derived values are checked echoes', async () => {
    type Settings = { settings: Record<string, unknown>; effective: Record<string, unknown> };
    const set = await s.call<Settings>('PATCH', '/v1/banks/rt/thread-settings', {
      messageTokens: 1000,
      bufferTokens: 0.2,
      bufferActivation: 0.7,
      blockAfter: 1.5,
      reflectionBlockAfter: 1.4,
      workingMemory: { maxTokens: 300 },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const { effective } = (await s.call<Settings>('GET', '/v1/banks/rt/thread-settings')).body;
    for (const method of ['PUT', 'PATCH']) {
      const back = await s.call<Settings>(method, '/v1/banks/rt/thread-settings', effective);
      assert.equal(back.status, 200, `${method}: ${JSON.stringify(back.body)}`);
      assert.deepEqual(back.body.effective, effective);
      assert.equal('keepTokens' in back.body.settings, false, 'derived values are not stored');
    }
    assert.deepEqual((await s.call<Settings>('GET', '/v1/banks/rt/thread-settings')).body.effective, effective);

    const wrong = await s.call<Err>('PUT', '/v1/banks/rt/thread-settings', { ...effective, keepTokens: 1 });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error.message, /keepTokens is derived from messageTokens and bufferActivation .* it is 300, not 1/);
    const stale = await s.call<Err>('PATCH', '/v1/banks/rt/thread-settings', { blockAfter: 1.8, blockAfterTokens: 1500 });
    assert.equal(stale.status, 400);
    assert.match(stale.body.error.message, /blockAfterTokens is derived .* it is 1800, not 1500/);
    assert.deepEqual((await s.call<Settings>('GET', '/v1/banks/rt/thread-settings')).body.effective, effective, 'nothing saved');
  });

  test('a setting too large is refused with the allowed maximum', async () => {
    for (const field of ['messageTokens', 'observationTokens', 'memoryTokenBudget', 'blockAfter']) {
      const r = await s.call<Err>('PATCH', '/v1/banks/big/thread-settings', { [field]: 1e308 });
      assert.equal(r.status, 400);
      assert.equal(
        r.body.error.message,
        `invalid thread memory settings (bank 'big' update): ${field}: ${field} must be at most 1000000000`,
      );
    }
    assert.equal((await s.call('PATCH', '/v1/banks/big/thread-settings', { messageTokens: 1_000_000_000 })).status, 200);
  });

  test('a thread whose override no longer fits the bank settings can be given a new one', async () => {
    assert.equal((await s.call('PUT', '/v1/banks/fx/threads/f1', { settings: { bufferTokens: 400 } })).status, 200);
    assert.equal((await s.call('POST', '/v1/banks/fx/threads/f1/messages', { role: 'user', content: 'hello' })).status, 200);
    assert.equal((await s.call('PATCH', '/v1/banks/fx/thread-settings', { messageTokens: 300 })).status, 200);
    const stuck = await s.call<Err>('GET', '/v1/banks/fx/threads/f1/context');
    assert.equal(stuck.status, 400);
    assert.match(stuck.body.error.message, /thread 'f1'.*bufferTokens/);
    const fixed = await s.call<Err>('PUT', '/v1/banks/fx/threads/f1', { settings: { bufferTokens: 0.2 } });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal((await s.call('GET', '/v1/banks/fx/threads/f1/context')).status, 200);
  });
});
