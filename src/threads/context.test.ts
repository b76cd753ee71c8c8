// Context assembly: budgets hold, reflections and the newest observations win the memory budget, and the prefix
// depends on memory only, never on the raw tail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../text/tokens.ts';
import { assembleContext, type ContextInput } from './context.ts';
import { resolveSettings } from './settings.ts';
import type { MemoryItem, ThreadMessage } from './types.ts';

let n = 0;
function item(kind: MemoryItem['kind'], text: string, generation = kind === 'reflection' ? 1 : 0): MemoryItem {
  n++;
  const at = new Date(Date.UTC(2024, 0, 1, 0, n)).toISOString();
  return {
    id: `${kind}-${n}`,
    bankId: 'b',
    recordId: 'thread:t',
    threadId: 't',
    kind,
    generation,
    status: 'active',
    text,
    tokens: countTokens(text),
    fromSeq: n,
    toSeq: n,
    messageCount: 1,
    inputTokens: 100,
    covers: [],
    currentTask: null,
    suggestedResponse: null,
    firstAt: at,
    lastAt: at,
    createdAt: at,
    activatedAt: at,
    archivedAt: null,
  };
}
function message(seq: number, content: string): ThreadMessage {
  return {
    seq,
    id: `m${seq}`,
    bankId: 'b',
    threadId: 't',
    role: 'user',
    name: null,
    content,
    toolCalls: null,
    timestamp: '2024-01-02T00:00:00.000Z',
    tokens: countTokens(content) + 4,
    createdAt: '',
  };
}

const observations = Array.from({ length: 10 }, (_, i) =>
  item('observation', `[1 Jan 2024] User: observation number ${i} about the garden shed and its blue door.`),
);
const reflections = [
  item('reflection', '[Dec 2023] Older summary: the user is building a garden shed.', 2),
  item('reflection', '[Dec 2023] User chose cedar wood.'),
];
const base = (over: Partial<ContextInput>): ContextInput => ({
  reflections,
  observations,
  currentTask: 'User: paint the door',
  suggestedResponse: null,
  workingMemory: '# WM\n- likes blue\n',
  tail: [message(1, 'What colour again?'), message(2, 'Blue, as agreed.')],
  settings: resolveSettings({}, 't'),
  maxTokens: null,
  ...over,
});

test('the prefix does not depend on the tail', () => {
  const a = assembleContext(base({}));
  const b = assembleContext(base({ tail: [message(3, 'Something else entirely, and longer than before.')] }));
  assert.equal(a.prefix, b.prefix);
  assert.equal(a.prefixHash, b.prefixHash);
  assert.match(a.prefix, /## Reflections[\s\S]*## Observations[\s\S]*## Current task\nUser: paint the door[\s\S]*## Working memory\n# WM/);
});

test('budgets hold: reflections first, then the newest observations, and the newest messages', () => {
  for (const maxTokens of [60, 150, 300, 600]) {
    const c = assembleContext(base({ maxTokens }));
    assert.ok(c.totalTokens <= maxTokens, `${c.totalTokens} > ${maxTokens}`);
    assert.equal(c.prefixTokens, countTokens(c.prefix));
    if (c.observationIds.length) {
      const newest = observations.slice(-c.observationIds.length).map((o) => o.id);
      assert.deepEqual(c.observationIds.slice().sort(), newest.slice().sort(), 'the newest observations are the ones kept');
      assert.equal(c.reflectionIds.length, 2, 'reflections go before observations');
    }
    if (c.messages.length === 1) assert.equal(c.messages[0].content, 'Blue, as agreed.', 'the newest message is kept first');
  }
  const limited = assembleContext(base({ settings: resolveSettings({ maxObservationsInContext: 3, maxReflectionsInContext: 1 }, 't') }));
  assert.equal(limited.observationIds.length, 3);
  assert.deepEqual(limited.reflectionIds, [reflections[0].id], 'the highest generation is preferred');
  assert.equal(limited.omittedObservations, 7);
});

test('an empty memory gives an empty prefix', () => {
  const c = assembleContext(base({ reflections: [], observations: [], currentTask: null, workingMemory: '# WM\n\n## Notes\n' }));
  assert.equal(c.prefix, '');
  assert.equal(c.prefixTokens, 0);
  assert.equal(c.messages.length, 2);
});
