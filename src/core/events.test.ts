// Events: listeners in subscription order, each awaited, unsubscribed on request, and a failure reaches the emitter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Events } from './events.ts';

test('listeners run in order, each awaited, and can unsubscribe', async () => {
  const events = new Events<{ done: [id: string, n: number] }>();
  const seen: string[] = [];
  events.on('done', async (id, n) => {
    await new Promise((resolve) => setImmediate(resolve));
    seen.push(`first ${id} ${n}`);
  });
  const off = events.on('done', (id) => void seen.push(`second ${id}`));
  await events.emit('done', 'a', 1);
  assert.deepEqual(seen, ['first a 1', 'second a']);
  off();
  await events.emit('done', 'b', 2);
  assert.deepEqual(seen, ['first a 1', 'second a', 'first b 2']);
});

test('a listener that throws rejects the emit', async () => {
  const events = new Events<{ gone: [] }>();
  events.on('gone', () => {
    throw new Error('boom');
  });
  await assert.rejects(events.emit('gone'), /boom/);
});
