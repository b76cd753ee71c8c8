// The agent-loop example runs offline against a real Cairn: the scripted model remembers through the client,
// recalls, and answers with the memory Cairn returned.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../../../test/support/server.ts';
import { runAgent } from './agent-loop.ts';

test('an AI SDK agent with Cairn tools remembers, recalls and answers from memory', async () => {
  const server = await startServer();
  try {
    const { text, toolCalls } = await runAgent(server.url);
    assert.deepEqual(toolCalls, ['remember', 'recall']);
    assert.match(text, /^From memory: .*peanut/i);
    const facts = await server.call<{ facts: Array<{ text: string }> }>('GET', '/v1/banks/agent-example/facts');
    assert.ok(
      facts.body.facts.some((f) => /peanut/i.test(f.text)),
      'the memory is in Cairn',
    );
  } finally {
    await server.close();
  }
});
