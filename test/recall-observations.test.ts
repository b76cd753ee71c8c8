// Recall's observation results over real HTTP: staleness, proof count, source facts on request, the text an
// observation had as of a past instant (and none before it existed).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ObservationRevision } from '../src/core/types.ts';
import type { RecallResponse, RecallResult } from '../src/recall/types.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';

const BANK = 'obs-recall';
const STORY = [
  { content: 'The new LLM search feature lifted user engagement by 30%.', timestamp: '2024-01-10T10:00:00Z' },
  { content: 'The LLM search API costs ran 5x over budget.', timestamp: '2024-02-12T10:00:00Z' },
  { content: 'The team switched LLM search to a cheaper model with 10% accuracy loss.', timestamp: '2024-03-20T10:00:00Z' },
];
const QUERY = 'How is the LLM search feature doing?';

describe('recall of observations', () => {
  let t: TestEngine;
  let observationId = '';
  let history: ObservationRevision[] = [];

  const recall = async (body: Record<string, unknown>): Promise<RecallResponse> => {
    const r = await t.call<RecallResponse>('POST', `/v1/banks/${BANK}/recall`, { query: QUERY, ...body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const observation = (response: RecallResponse): RecallResult | undefined => response.results.find((r) => r.id === observationId);

  before(async () => {
    t = await openEngine();
    await t.engine.createBank({ id: BANK });
    for (const item of STORY) {
      assert.equal((await t.call('POST', `/v1/banks/${BANK}/memories`, { items: [item] })).status, 200);
      await t.worker.drain(BANK);
    }
    const observations = (await t.store.listFacts(BANK, { kinds: ['observation'], limit: 10, offset: 0 })).facts;
    assert.equal(observations.length, 1);
    observationId = observations[0].id;
    history = (await t.call<{ history: ObservationRevision[] }>('GET', `/v1/banks/${BANK}/observations/${observationId}/history`)).body
      .history;
    assert.equal(history.length, 3);
  });
  after(async () => {
    await t.close();
  });

  test('observations carry staleness and proof count; facts do not; source facts only on request', async () => {
    const plain = await recall({});
    const obs = observation(plain);
    assert.ok(obs, 'the observation is recalled');
    assert.equal(obs.stale, false);
    assert.equal(obs.proofCount, 1);
    assert.equal(obs.sourceFacts, undefined);
    const fact = plain.results.find((r) => r.kind !== 'observation');
    assert.ok(fact);
    assert.equal(fact.stale, undefined);
    assert.equal(fact.proofCount, undefined);

    const withSources = observation(await recall({ types: ['observation'], include: { sourceFacts: true } }));
    assert.ok(withSources?.sourceFacts);
    assert.deepEqual(
      withSources.sourceFacts.map((s) => s.role),
      ['supports', 'contradicts', 'contradicts'],
    );
    assert.deepEqual(new Set(withSources.sourceFacts.map((s) => s.source?.sentence)), new Set(STORY.map((s) => s.content)));
  });

  test('as of a past instant an observation reads as it did then, and is dropped before it existed', async () => {
    for (const revision of history) {
      const then = observation(await recall({ types: ['observation'], asOf: revision.at }));
      assert.equal(then?.text, revision.newText);
    }
    const before = await recall({ types: ['observation'], asOf: new Date(Date.parse(history[0].at) - 1).toISOString() });
    assert.equal(observation(before), undefined);
  });

  test('a waiting fact about its entities makes the observation stale until consolidated', async () => {
    const item = { content: 'The LLM search usage doubled after the model switch.', timestamp: '2024-04-20T10:00:00Z' };
    assert.equal((await t.call('POST', `/v1/banks/${BANK}/memories`, { items: [item] })).status, 200);
    assert.equal(observation(await recall({ types: ['observation'] }))?.stale, true);
    await t.worker.drain(BANK);
    assert.equal(observation(await recall({ types: ['observation'] }))?.stale, false);
  });
});
