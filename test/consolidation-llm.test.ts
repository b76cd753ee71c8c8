// LLM consolidation end to end: the real engine on SQLite over real HTTP, the real openai client talking to a
// SCRIPTED FAKE of the chat-completions protocol on 127.0.0.1. The scripted decisions tell the three-step story
// (one observation, three revisions, each with its evidence); an invented id is shown to the model in its one
// retry; a reply that stays invalid writes nothing and leaves the fact waiting (the attempt recorded) until a
// later run; a deletion is rewritten from the remaining evidence only; the ledger totals equal the scripted usage;
// banks without a provider fall back to the offline consolidator.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { consolidatorFor } from '../src/consolidate/llm.ts';
import type { Fact, ObservationRevision } from '../src/core/types.ts';
import { GloveEmbedder } from '../src/embed/glove.ts';
import { createOpenAiCompatibleProvider } from '../src/llm/openai-compatible.ts';
import type { LlmProvider } from '../src/llm/ports.ts';
import { openDatabase } from '../src/store/sqlite/database.ts';
import { SqliteUsageLedger } from '../src/store/sqlite/usage.ts';
import { gloveCacheFile, openEngine, type TestEngine } from './support/consolidation.ts';
import { reply, startFakeLlmServer, type FakeLlmServer, type ReceivedRequest, type ScriptedUsage } from './support/fake-llm-server.ts';

const STORY = [
  { content: 'The new LLM search feature lifted user engagement by 30%.', timestamp: '2024-01-10T10:00:00Z' },
  { content: 'The LLM search API costs ran 5x over budget.', timestamp: '2024-02-12T10:00:00Z' },
  { content: 'The team switched LLM search to a cheaper model with 10% accuracy loss.', timestamp: '2024-03-20T10:00:00Z' },
];
const TEXTS = [
  'LLM search lifted user engagement by 30% (January 2024).',
  'LLM search lifted user engagement by 30% in January 2024, but by February 2024 its API costs ran 5x over budget.',
  'LLM search lifted user engagement by 30% in January 2024; its API costs then ran 5x over budget (February 2024), ' +
    'so in March 2024 the team switched to a cheaper model, accepting a 10% accuracy loss.',
];
const MISSION = 'Track how our product features perform and what they cost';

type Chain = {
  observation: { id: string; text: string };
  supporting: Array<{ fact: { id: string } }>;
  contradicting: Array<{ fact: { id: string } }>;
};

let server: FakeLlmServer;
let t: TestEngine;
let ledger: SqliteUsageLedger;

const systemOf = (r: ReceivedRequest): string => r.body.messages.find((m) => m.role === 'system')?.content ?? '';
const userOf = (r: ReceivedRequest): string => r.body.messages.find((m) => m.role === 'user')?.content ?? '';

async function retainOne(bank: string, item: { content: string; timestamp: string }): Promise<string> {
  const r = await t.call<{ result: { factIds: string[] } }>('POST', `/v1/banks/${bank}/memories`, { items: [item] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.result.factIds.length, 1);
  return r.body.result.factIds[0];
}

async function consolidate(bank: string): Promise<{ consolidated: number; failed: number }> {
  const r = await t.call<{ run: { consolidated: number; failed: number } }>('POST', `/v1/banks/${bank}/consolidate?wait=true`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { consolidated: r.body.run.consolidated, failed: r.body.run.failed };
}

async function observations(bank: string): Promise<Fact[]> {
  return (await t.store.listFacts(bank, { kinds: ['observation'], limit: 100, offset: 0 })).facts;
}

async function usageTotals(bank: string): Promise<[number, number, number, number]> {
  const { total } = await ledger.query({ bankId: bank });
  return [total.calls, total.inputTokens, total.outputTokens, total.cachedTokens];
}

const sum = (usages: ScriptedUsage[]): [number, number, number, number] => [
  usages.length,
  usages.reduce((n, u) => n + u.prompt, 0),
  usages.reduce((n, u) => n + u.completion, 0),
  usages.reduce((n, u) => n + (u.cached ?? 0), 0),
];

before(async () => {
  server = await startFakeLlmServer();
  const llm: LlmProvider = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'scripted-consolidator' });
  ledger = new SqliteUsageLedger(openDatabase(':memory:'));
  const embedder = await GloveEmbedder.open({ cacheFile: gloveCacheFile() });
  // One deployment: every bank but 'plain' has a consolidation LLM.
  const consolidator = consolidatorFor(embedder, (bank) => (bank.id === 'plain' ? null : llm), { ledger });
  t = await openEngine({ attach: { consolidator, worker: { backoffMs: 300 } } });
});
after(async () => {
  await t.close();
  await server.close();
});

describe('LLM consolidation', () => {
  const story: string[] = [];
  const storyUsage: ScriptedUsage[] = [];

  test('the three-step story is one observation with three revisions, each with its evidence', async () => {
    await t.engine.createBank({ id: 'story', mission: MISSION });
    const decisions = [
      { action: 'create', ref: 'N1', text: TEXTS[0], facet: 'LLM search', evidence: ['F1'] },
      { action: 'update', observationId: 'O1', kind: 'contradict', newText: TEXTS[1], evidence: ['F1'] },
      { action: 'update', observationId: 'O1', kind: 'contradict', newText: TEXTS[2], evidence: ['F1'] },
    ];
    for (const [i, item] of STORY.entries()) {
      story.push(await retainOne('story', item));
      const usage = { prompt: 400 + 100 * i, completion: 60 + i, cached: 10 * i };
      storyUsage.push(usage);
      server.script(reply.json({ decisions: [decisions[i]] }, usage));
      const first = server.requests.length;
      assert.deepEqual(await consolidate('story'), { consolidated: 1, failed: 0 });
      // One call per step, showing the mission, the new fact with its time and the observation so far.
      assert.equal(server.requests.length, first + 1);
      const request = server.requests[first];
      assert.equal(request.body.response_format?.json_schema?.name, 'consolidation');
      assert.equal(request.body.temperature, 0);
      assert.match(systemOf(request), new RegExp(MISSION));
      assert.match(userOf(request), new RegExp(`F1 \\(${item.timestamp.slice(0, 10)}\\): ${item.content.replace(/[.%()]/g, '\\$&')}`));
      if (i > 0) assert.match(userOf(request), new RegExp(`O1 \\[facet: LLM search\\]: ${TEXTS[i - 1].replace(/[.%()]/g, '\\$&')}`));
    }
    const [obs, ...more] = await observations('story');
    assert.equal(more.length, 0);
    assert.equal(obs.text, TEXTS[2]);
    assert.equal(obs.metadata.facet, 'LLM search');
    assert.equal(obs.metadata.consolidator, 'llm|offline');
    const h = await t.call<{ history: ObservationRevision[] }>('GET', `/v1/banks/story/observations/${obs.id}/history`);
    assert.deepEqual(
      h.body.history.map((r) => r.reason),
      ['created', 'contradicted', 'contradicted'],
    );
    assert.deepEqual(
      h.body.history.map((r) => r.factIds),
      story.map((id) => [id]),
    );
    assert.deepEqual(
      h.body.history.map((r) => r.newText),
      TEXTS,
    );
    assert.deepEqual(
      h.body.history.map((r) => r.oldText),
      [null, TEXTS[0], TEXTS[1]],
    );
    const chain = await t.call<Chain>('GET', `/v1/banks/story/observations/${obs.id}`);
    assert.deepEqual(
      chain.body.supporting.map((l) => l.fact.id),
      [story[0]],
    );
    assert.deepEqual(chain.body.contradicting.map((l) => l.fact.id).sort(), [story[1], story[2]].sort());
    assert.deepEqual(await usageTotals('story'), sum(storyUsage));
  });

  test('a deletion rewrites the observation from the remaining evidence, and the model never sees the deleted fact', async () => {
    const rewritten =
      'LLM search lifted user engagement by 30% in January 2024; in March 2024 the team switched to a cheaper model with 10% accuracy loss.';
    const usage = { prompt: 150, completion: 30 };
    server.script(reply.json({ text: rewritten }, usage));
    const first = server.requests.length;
    const r = await t.call('DELETE', `/v1/banks/story/facts/${story[1]}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(server.requests.length, first + 1);
    const asked = server.requests[first].body.messages.map((m) => m.content).join('\n');
    assert.ok(!/5x|over budget|costs/.test(asked), asked);
    assert.ok(asked.includes(STORY[0].content) && asked.includes(STORY[2].content), asked);
    const [obs] = await observations('story');
    assert.equal(obs.text, rewritten);
    assert.equal((await t.store.historyOf('story', obs.id)).at(-1)?.reason, 'evidence-removed');
    assert.deepEqual(await usageTotals('story'), sum([...storyUsage, usage]));
  });

  test('the same story consolidated in one batch, in one call, still keeps three revisions', async () => {
    await t.engine.createBank({ id: 'story-batch', mission: MISSION });
    const ids = (await t.engine.retain('story-batch', { items: STORY })).result?.factIds ?? [];
    assert.equal(ids.length, 3);
    const usage = { prompt: 700, completion: 150 };
    server.script(
      reply.json(
        {
          decisions: [
            { action: 'create', ref: 'N1', text: TEXTS[0], evidence: ['F1'] },
            { action: 'update', observationId: 'N1', kind: 'contradict', newText: TEXTS[1], evidence: ['F2'] },
            { action: 'update', observationId: 'N1', kind: 'contradict', newText: TEXTS[2], evidence: ['F3'] },
          ],
        },
        usage,
      ),
    );
    const first = server.requests.length;
    assert.deepEqual(await consolidate('story-batch'), { consolidated: 3, failed: 0 });
    assert.equal(server.requests.length, first + 1);
    const [obs, ...more] = await observations('story-batch');
    assert.equal(more.length, 0);
    const history = await t.store.historyOf('story-batch', obs.id);
    assert.deepEqual(
      history.map((r) => [r.reason, r.factIds, r.newText]),
      [
        ['created', [ids[0]], TEXTS[0]],
        ['contradicted', [ids[1]], TEXTS[1]],
        ['contradicted', [ids[2]], TEXTS[2]],
      ],
    );
    assert.deepEqual(await usageTotals('story-batch'), sum([usage]));
  });

  test('an invented id is shown to the model in its one retry, and the corrected reply is applied', async () => {
    await t.engine.createBank({ id: 'retry', mission: MISSION });
    const first = await retainOne('retry', STORY[0]);
    const usages: ScriptedUsage[] = [{ prompt: 300, completion: 40 }];
    server.script(reply.json({ decisions: [{ action: 'create', text: TEXTS[0], evidence: ['F1'] }] }, usages[0]));
    assert.equal((await consolidate('retry')).consolidated, 1);

    const second = await retainOne('retry', {
      content: 'LLM search engagement stayed 30% higher in February.',
      timestamp: '2024-02-01T10:00:00Z',
    });
    const invented = { decisions: [{ action: 'support', observationId: 'O7', factIds: ['F1', 'F9'] }] };
    usages.push({ prompt: 320, completion: 20 }, { prompt: 380, completion: 18, cached: 300 });
    server.script(
      reply.json(invented, usages[1]),
      reply.json({ decisions: [{ action: 'support', observationId: 'O1', factIds: ['F1'] }] }, usages[2]),
    );
    const before = server.requests.length;
    assert.deepEqual(await consolidate('retry'), { consolidated: 1, failed: 0 });
    assert.equal(server.requests.length, before + 2);
    const retry = server.requests[before + 1].body.messages;
    assert.equal(retry.at(-2)?.role, 'assistant');
    assert.deepEqual(JSON.parse(retry.at(-2)?.content ?? ''), invented);
    const shown = retry.at(-1)?.content ?? '';
    assert.match(shown, /"O7" is not one of the observations shown \(O1\)/);
    assert.match(shown, /"F9" is not one of the facts shown/);

    const [obs, ...more] = await observations('retry');
    assert.equal(more.length, 0);
    assert.equal(obs.text, TEXTS[0], 'support keeps the text');
    const history = await t.store.historyOf('retry', obs.id);
    assert.deepEqual(
      history.map((r) => [r.reason, r.factIds]),
      [
        ['created', [first]],
        ['supported', [second]],
      ],
    );
    assert.equal((await t.store.getObservations('retry', [obs.id]))[0].proofCount, 2);
    assert.deepEqual(await usageTotals('retry'), sum(usages));
  });

  test('the grouping rules hold for the LLM: a fact about something else never joins an observation, nor supersedes', async () => {
    await t.engine.createBank({ id: 'maya-llm' });
    const food = await retainOne('maya-llm', { content: "Maya's favourite food is pastel de nata.", timestamp: '2024-03-01T10:00:00Z' });
    server.script(reply.json({ decisions: [{ action: 'create', text: "Maya's favourite food is pastel de nata.", evidence: ['F1'] }] }));
    assert.equal((await consolidate('maya-llm')).consolidated, 1);
    const manager = await retainOne('maya-llm', { content: "Maya's manager is Ines Costa.", timestamp: '2024-03-08T10:00:00Z' });
    // The model glues the manager to the food observation and lets the new fact supersede the old one.
    server.script(
      reply.json({
        decisions: [
          {
            action: 'update',
            observationId: 'O1',
            kind: 'contradict',
            newText: "Maya's favourite food was pastel de nata; now her manager is Ines Costa.",
            evidence: ['F1'],
          },
          { action: 'supersede', factId: 'F2', by: 'F1' },
        ],
      }),
    );
    assert.deepEqual(await consolidate('maya-llm'), { consolidated: 1, failed: 0 });
    const [obs, ...more] = await observations('maya-llm');
    assert.equal(more.length, 0);
    assert.equal(obs.text, "Maya's favourite food is pastel de nata.", 'the update about another subject was refused');
    assert.deepEqual(
      (await t.store.historyOf('maya-llm', obs.id)).map((r) => r.reason),
      ['created'],
    );
    assert.deepEqual((await t.store.observationsOfFact('maya-llm', manager)).length, 0);
    const [foodFact] = await t.store.getFacts('maya-llm', [food]);
    assert.equal(foodFact.status, 'active', 'the manager does not supersede the food');
    const [managerFact] = await t.store.getFacts('maya-llm', [manager]);
    assert.ok(managerFact.consolidatedAt, 'the fact left the queue all the same');
    assert.match(systemOf(server.requests.at(-1)!), /An observation is about one subject/);
  });

  test('a reply still invalid after the retry writes nothing: the fact waits, its attempt recorded, and a later run consolidates it', async () => {
    await t.engine.createBank({ id: 'broken', mission: MISSION });
    const id = await retainOne('broken', STORY[0]);
    const usages: ScriptedUsage[] = [
      { prompt: 200, completion: 30 },
      { prompt: 260, completion: 25 },
    ];
    server.script(
      reply.json({ decisions: [{ action: 'create', text: TEXTS[0], evidence: ['F9'] }] }, usages[0]),
      reply.json(
        { decisions: [{ action: 'update', observationId: 'O1', kind: 'refine', newText: TEXTS[0], evidence: ['F1'] }] },
        usages[1],
      ),
    );
    const before = server.requests.length;
    assert.deepEqual(await consolidate('broken'), { consolidated: 0, failed: 1 });
    assert.equal(server.requests.length, before + 2, 'one call and one corrective retry');
    assert.match(server.requests[before + 1].body.messages.at(-1)?.content ?? '', /"F9" is not one of the facts shown; the facts are F1/);
    assert.equal((await observations('broken')).length, 0, 'no observation written');
    const row = t.store.db.prepare('SELECT consolidated_at, attempts, last_error FROM facts WHERE id = ?').get(id) as {
      consolidated_at: string | null;
      attempts: number;
      last_error: string;
    };
    assert.equal(row.consolidated_at, null);
    assert.equal(row.attempts, 1);
    assert.match(row.last_error, /consolidation output after 2 attempts.*"O1" is not one of the observations shown/s);
    const status = await t.call<{ backlog: number; failed: number; lastError: { error: string } | null }>(
      'GET',
      '/v1/banks/broken/consolidation',
    );
    assert.deepEqual([status.body.backlog, status.body.failed], [1, 0]);
    assert.match(status.body.lastError?.error ?? '', /not one of the observations shown/);
    assert.deepEqual(await usageTotals('broken'), sum(usages));

    // Retried later (after the backoff), with a valid reply this time.
    await new Promise((resolve) => setTimeout(resolve, 350));
    usages.push({ prompt: 210, completion: 35 });
    server.script(reply.json({ decisions: [{ action: 'create', text: TEXTS[0], evidence: ['F1'] }] }, usages[2]));
    assert.deepEqual(await consolidate('broken'), { consolidated: 1, failed: 0 });
    assert.deepEqual(
      (await observations('broken')).map((o) => o.text),
      [TEXTS[0]],
    );
    assert.deepEqual(await usageTotals('broken'), sum(usages));
  });

  test('a bank without a consolidation LLM is consolidated offline, with no call', async () => {
    await t.engine.createBank({ id: 'plain' });
    await retainOne('plain', STORY[0]);
    const before = server.requests.length;
    assert.equal((await consolidate('plain')).consolidated, 1);
    assert.equal(server.requests.length, before);
    assert.equal((await observations('plain')).length, 1);
    assert.deepEqual(await usageTotals('plain'), [0, 0, 0, 0]);
  });
});
