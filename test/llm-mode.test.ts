// With CAIRN_LLM_BASE_URL set, retain uses the model (here: a SCRIPTED FAKE of the OpenAI chat-completions wire
// protocol on 127.0.0.1, reached through the real openai client), every call lands in the usage ledger, and
// GET /v1/banks/:bank/usage totals equal the sum of the scripted usage. A malformed reply never reaches the store.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { reply, startFakeLlmServer, type FakeLlmServer } from './support/fake-llm-server.ts';
import { startServer, type TestServer } from './support/server.ts';

let llm: FakeLlmServer;
let s: TestServer;

before(async () => {
  llm = await startFakeLlmServer();
  s = await startServer({ env: llm.cairnEnv });
  await s.call('POST', '/v1/banks', { id: 'llm' });
});
after(async () => {
  await s.close();
  await llm.close();
});

const fact = (what: string, quote: string) => ({
  what,
  kind: 'world',
  quote,
  occurredStart: '2024-05-01',
  entities: [{ name: 'Alice', type: 'person' }],
});

test('retain through the model; usage totals equal the scripted usage', async () => {
  llm.script(
    reply.json({ facts: [fact('Alice moved to Berlin in May 2024.', 'I moved to Berlin')] }, { prompt: 120, completion: 30, cached: 20 }),
    reply.json({ facts: [fact('Alice adopted a cat named Miso.', 'adopted a cat')] }, { prompt: 100, completion: 25 }),
  );
  const r = await s.call<{ result: { facts: number } }>('POST', '/v1/banks/llm/memories', {
    items: [
      { content: 'I moved to Berlin this month.', speaker: 'Alice', timestamp: '2024-05-20T10:00:00Z' },
      { content: 'Also, I adopted a cat. Her name is Miso.', speaker: 'Alice', timestamp: '2024-05-21T10:00:00Z' },
    ],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.facts, 2);
  const facts = await s.call<{ facts: Array<{ text: string; occurredStart: string | null }> }>('GET', '/v1/banks/llm/facts');
  assert.ok(facts.body.facts.some((f) => f.text === 'Alice moved to Berlin in May 2024.' && f.occurredStart?.startsWith('2024-05-01')));
  const usage = await s.call<{
    total: { calls: number; inputTokens: number; outputTokens: number; cachedTokens: number };
    groups: Array<{ operation: string; model: string }>;
  }>('GET', '/v1/banks/llm/usage');
  assert.equal(usage.status, 200);
  assert.equal(usage.body.total.calls, 2);
  assert.equal(usage.body.total.inputTokens, 220);
  assert.equal(usage.body.total.outputTokens, 55);
  assert.equal(usage.body.total.cachedTokens, 20);
  assert.deepEqual(
    usage.body.groups.map((g) => [g.operation, g.model]),
    [['retain', 'scripted-model']],
  );
});

test('a reply malformed twice fails the retain visibly and stores nothing', async () => {
  const before = await s.call<{ total: number }>('GET', '/v1/banks/llm/facts?limit=1');
  llm.script(reply.text('{"facts": [ {"what": '), reply.text('not json at all'));
  const r = await s.call<{ error: { code: string; message: string } }>('POST', '/v1/banks/llm/memories', {
    items: [{ content: 'Bob sold his bike to Carol.', speaker: 'Bob', timestamp: '2024-06-01T10:00:00Z' }],
  });
  assert.ok(r.status >= 500, `status ${r.status}`);
  assert.ok(r.body.error.message.length > 0);
  const afterFacts = await s.call<{ total: number }>('GET', '/v1/banks/llm/facts?limit=1');
  assert.equal(afterFacts.body.total, before.body.total);
});

test('the usage range filter excludes calls outside it', async () => {
  const usage = await s.call<{ total: { calls: number } }>('GET', '/v1/banks/llm/usage?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z');
  assert.equal(usage.body.total.calls, 0);
  const bad = await s.call('GET', '/v1/banks/llm/usage?from=soon');
  assert.equal(bad.status, 400);
});

test('consolidation runs through the model too, and its calls land in the ledger under their own operation', async () => {
  const r = await s.call('POST', '/v1/banks', { id: 'llm-consolidation', mission: 'Track where people live' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  llm.script(reply.json({ facts: [fact('Alice moved to Berlin in May 2024.', 'I moved to Berlin')] }, { prompt: 90, completion: 20 }));
  const retained = await s.call<{ result: { factIds: string[] } }>('POST', '/v1/banks/llm-consolidation/memories', {
    items: [{ content: 'I moved to Berlin this month.', speaker: 'Alice', timestamp: '2024-05-20T10:00:00Z' }],
  });
  assert.equal(retained.status, 200, JSON.stringify(retained.body));
  const first = llm.requests.length;
  const text = 'Alice lives in Berlin since May 2024.';
  llm.script(
    reply.json({ decisions: [{ action: 'create', ref: 'N1', text, facet: 'home', evidence: ['F1'] }] }, { prompt: 300, completion: 40 }),
  );
  const run = await s.call<{ run: { consolidated: number; failed: number } }>('POST', '/v1/banks/llm-consolidation/consolidate?wait=true');
  assert.equal(run.status, 200, JSON.stringify(run.body));
  assert.deepEqual([run.body.run.consolidated, run.body.run.failed], [1, 0]);
  assert.equal(llm.requests.length, first + 1, 'one consolidation call reached the model');
  assert.match(JSON.stringify(llm.requests[first].body.messages), /Track where people live/);
  const observations = await s.call<{ facts: Array<{ id: string; text: string }> }>(
    'GET',
    '/v1/banks/llm-consolidation/facts?kind=observation',
  );
  assert.deepEqual(
    observations.body.facts.map((f) => f.text),
    [text],
  );
  const chain = await s.call<{ supporting: Array<{ fact: { id: string } }> }>(
    'GET',
    `/v1/banks/llm-consolidation/observations/${observations.body.facts[0].id}`,
  );
  assert.deepEqual(
    chain.body.supporting.map((l) => l.fact.id),
    retained.body.result.factIds,
  );
  const usage = await s.call<{ groups: Array<{ operation: string; calls: number; inputTokens: number }> }>(
    'GET',
    '/v1/banks/llm-consolidation/usage',
  );
  assert.deepEqual(usage.body.groups.map((g) => [g.operation, g.calls, g.inputTokens]).sort(), [
    ['consolidation', 1, 300],
    ['retain', 1, 90],
  ]);
});
