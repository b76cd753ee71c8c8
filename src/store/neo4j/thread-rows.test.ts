// Thread memory and ledger records as Neo4j node properties, checked without a server: what a write stores reads
// back as the same record (null fields absent, integers sent as integers), and a commit's patch changes only the
// fields it may.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import neo4j from 'neo4j-driver';
import type { StoredItem, StoredMessage } from '../../threads/ports.ts';
import type { Props } from './rows.ts';
import { itemPatch, itemProps, messageProps, toStoredItem, toStoredMessage, usageProps } from './thread-rows.ts';

const NOW = '2024-05-01T10:00:00.000Z';

/** Properties as the driver reads them back (integers as JS numbers: the connection disables lossless integers). */
function asRead(p: Props): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries(p)) out[k] = neo4j.isInt(v) ? v.toNumber() : v;
  return out;
}

const integerFields = (p: Props): string[] =>
  Object.keys(p)
    .filter((k) => neo4j.isInt(p[k]))
    .sort();

const message: StoredMessage = {
  seq: 12,
  id: 'msg-1',
  bankId: 'b',
  threadId: 't',
  role: 'assistant',
  name: null,
  content: 'Sure.',
  toolCalls: [{ id: 'c1', name: 'search', arguments: { q: 'x' } }],
  timestamp: NOW,
  tokens: 3,
  createdAt: NOW,
  bridgedAt: null,
};

const item: StoredItem = {
  id: 'mem-1',
  bankId: 'b',
  recordId: 'resource:r',
  threadId: null,
  kind: 'reflection',
  generation: 2,
  status: 'active',
  text: 'Alice moved.',
  tokens: 4,
  fromSeq: null,
  toSeq: null,
  messageCount: 0,
  inputTokens: 40,
  covers: ['mem-0'],
  currentTask: null,
  suggestedResponse: 'Ask about Berlin.',
  firstAt: NOW,
  lastAt: NOW,
  createdAt: NOW,
  activatedAt: NOW,
  archivedAt: null,
  bridgedAt: '2024-05-02T00:00:00.000Z',
};

test('a message written as node properties reads back as the same message, its numbers stored as integers', () => {
  const props = messageProps(message);
  assert.deepEqual(integerFields(props), ['seq', 'tokens']);
  assert.ok(!('name' in props) && !('bridgedAt' in props), 'null fields are no property');
  assert.deepEqual(toStoredMessage(asRead(props)), message);
  const plain = { ...message, toolCalls: null, name: 'Bob', bridgedAt: NOW };
  assert.deepEqual(toStoredMessage(asRead(messageProps(plain))), plain);
});

test('a memory item written as node properties reads back as the same item, with its place in the creation order', () => {
  const { bridgedAt, ...memory } = item;
  const props = itemProps(memory, 41, bridgedAt);
  assert.deepEqual(integerFields(props), ['generation', 'inputTokens', 'messageCount', 'rid', 'tokens']);
  assert.equal(asRead(props).rid, 41);
  assert.deepEqual(toStoredItem(asRead(props)), item);
  const observation: StoredItem = {
    ...item,
    kind: 'observation',
    generation: 0,
    threadId: 't',
    fromSeq: 3,
    toSeq: 9,
    covers: [],
    bridgedAt: null,
  };
  const { bridgedAt: none, ...o } = observation;
  assert.deepEqual(integerFields(itemProps(o, 1, none)), [
    'fromSeq',
    'generation',
    'inputTokens',
    'messageCount',
    'rid',
    'toSeq',
    'tokens',
  ]);
  assert.deepEqual(toStoredItem(asRead(itemProps(o, 1, none))), observation);
});

test("a commit's patch: the fields it may change, nulls kept (they remove the property), nothing when it names none", () => {
  const patch = itemPatch({
    status: 'archived',
    archivedAt: NOW,
    currentTask: null,
    toSeq: 7,
    covers: undefined,
    id: 'x',
    bankId: 'c',
    recordId: 'r',
    bogus: 1,
  });
  assert.ok(patch);
  assert.deepEqual(Object.keys(patch).sort(), ['archivedAt', 'covers', 'currentTask', 'status', 'toSeq']);
  assert.deepEqual(asRead(patch), { status: 'archived', archivedAt: NOW, currentTask: null, toSeq: 7, covers: [] });
  assert.ok(neo4j.isInt(patch.toSeq));
  assert.equal(itemPatch({ id: 'x', bogus: 1 }), null);
  assert.equal(itemPatch({}), null);
});

test('a ledger entry: canonical time, whole milliseconds, no bank property for calls outside a bank', () => {
  const props = usageProps(
    {
      operation: 'retain',
      bankId: null,
      provider: 'openai',
      model: 'm',
      inputTokens: 10,
      outputTokens: 2,
      cachedTokens: 0,
      latencyMs: 99.5,
      costUsd: 0.5,
      at: 'x',
      ok: false,
      error: 'boom',
    },
    NOW,
  );
  assert.deepEqual(asRead(props), {
    at: NOW,
    operation: 'retain',
    provider: 'openai',
    model: 'm',
    inputTokens: 10,
    outputTokens: 2,
    cachedTokens: 0,
    latencyMs: 100,
    costUsd: 0.5,
    ok: false,
    error: 'boom',
  });
  assert.deepEqual(integerFields(props), ['cachedTokens', 'inputTokens', 'latencyMs', 'outputTokens']);
});
