// Consolidation end to end on the real embedded store, over real HTTP: the three-step story, supersession in
// valid time, mission steering, the audit chain down to the exact source sentence, status and manual runs, and
// the helpers recall uses (stale, source facts, asOf text).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { observationTextAsOf } from '../src/audit/as-of.ts';
import { observationExtras } from '../src/audit/recall-extras.ts';
import { sourceFactsOf } from '../src/audit/source-facts.ts';
import { staleObservations } from '../src/consolidate/staleness.ts';
import type { Fact, ObservationRevision } from '../src/core/types.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';

type Chain = {
  observation: { id: string; text: string; proofCount: number };
  supporting: Array<{
    fact: { id: string; text: string };
    source: { sentence: string; documentId: string; chunkId: string; start: number; end: number } | null;
  }>;
  contradicting: Array<{ fact: { id: string; text: string } }>;
};

const STORY = [
  { content: 'The new LLM search feature lifted user engagement by 30%.', timestamp: '2024-01-10T10:00:00Z' },
  { content: 'The LLM search API costs ran 5x over budget.', timestamp: '2024-02-12T10:00:00Z' },
  { content: 'The team switched LLM search to a cheaper model with 10% accuracy loss.', timestamp: '2024-03-20T10:00:00Z' },
];

async function facts(t: TestEngine, bank: string, kinds: Fact['kind'][] = ['world', 'experience']): Promise<Fact[]> {
  return (await t.store.listFacts(bank, { kinds, includeSuperseded: true, limit: 1000, offset: 0 })).facts;
}

async function retainOne(
  t: TestEngine,
  bank: string,
  item: { content: string; timestamp: string; documentId?: string },
): Promise<string[]> {
  const r = await t.call<{ result: { factIds: string[] } }>('POST', `/v1/banks/${bank}/memories`, { items: [item] });
  assert.equal(r.status, 200);
  return r.body.result.factIds;
}

describe('consolidation', () => {
  let t: TestEngine;
  before(async () => {
    t = await openEngine();
  });
  after(async () => {
    await t.close();
  });

  test('the three-step story is one observation with three revisions, each with its evidence', async () => {
    await t.engine.createBank({ id: 'story' });
    const ids: string[] = [];
    for (const item of STORY) {
      const [id] = await retainOne(t, 'story', item);
      ids.push(id);
      const run = await t.call<{ run: { consolidated: number } }>('POST', '/v1/banks/story/consolidate?wait=true');
      assert.equal(run.status, 200);
      assert.equal(run.body.run.consolidated, 1);
    }
    const observations = await facts(t, 'story', ['observation']);
    assert.equal(observations.length, 1, observations.map((o) => o.text).join(' | '));
    const obs = observations[0];
    const h = await t.call<{ history: ObservationRevision[] }>('GET', `/v1/banks/story/observations/${obs.id}/history`);
    assert.deepEqual(
      h.body.history.map((r) => r.reason),
      ['created', 'contradicted', 'contradicted'],
    );
    assert.deepEqual(
      h.body.history.map((r) => r.factIds),
      ids.map((id) => [id]),
    );
    assert.equal(h.body.history[0].oldText, null);
    for (let i = 1; i < 3; i++) assert.equal(h.body.history[i].oldText, h.body.history[i - 1].newText);
    // The text leads with the newest state, then tells how it got there, in order, in the facts' own words.
    const text = obs.text;
    const at = STORY.map((s) => text.indexOf(s.content.replace(/^The /, '').replace(/\.$/, '')));
    assert.ok(at.every((i) => i >= 0) && at[2] < at[0] && at[0] < at[1], text);
    assert.match(text, /^The team switched .* \(2024-03-20\)\. Before that: .*\(2024-01-10\); then .*\(2024-02-12\)\.$/);
    const chain = await t.call<Chain>('GET', `/v1/banks/story/observations/${obs.id}`);
    assert.deepEqual(
      chain.body.supporting.map((l) => l.fact.id),
      [ids[0]],
    );
    assert.deepEqual(chain.body.contradicting.map((l) => l.fact.id).sort(), [ids[1], ids[2]].sort());
    const of = await t.call<{ observations: Array<{ role: string; observation: { id: string } }> }>(
      'GET',
      `/v1/banks/story/facts/${ids[2]}/observations`,
    );
    assert.deepEqual(
      of.body.observations.map((o) => [o.role, o.observation.id]),
      [['contradicts', obs.id]],
    );
  });

  test('the same story retained at once and consolidated in one batch still keeps three revisions', async () => {
    await t.engine.createBank({ id: 'story-batch' });
    await t.engine.retain('story-batch', { items: STORY });
    await t.worker.drain('story-batch');
    const observations = await facts(t, 'story-batch', ['observation']);
    assert.equal(observations.length, 1);
    assert.deepEqual(
      (await t.store.historyOf('story-batch', observations[0].id)).map((r) => r.reason),
      ['created', 'contradicted', 'contradicted'],
    );
  });

  test('a newer fact about the same entity and attribute supersedes the older one, closing it in valid time', async () => {
    await t.engine.createBank({ id: 'moves' });
    const [berlin] = await retainOne(t, 'moves', { content: 'Alice lives in Berlin.', timestamp: '2023-06-01T10:00:00Z' });
    const [cat] = await retainOne(t, 'moves', { content: 'Alice adopted a grey cat called Miso.', timestamp: '2023-07-01T10:00:00Z' });
    await t.worker.drain('moves');
    const [paris] = await retainOne(t, 'moves', { content: 'Alice moved to Paris.', timestamp: '2024-02-01T10:00:00Z' });
    await t.worker.drain('moves');
    const all = new Map((await facts(t, 'moves')).map((f) => [f.id, f]));
    const old = all.get(berlin)!;
    assert.equal(old.status, 'superseded');
    assert.equal(old.supersededBy, paris);
    assert.equal(Date.parse(old.validTo ?? ''), Date.parse('2024-02-01T10:00:00Z'), 'valid until the move');
    assert.ok(old.supersededAt && old.supersededAt > old.createdAt, 'record time of the change');
    assert.equal(all.get(paris)!.status, 'active');
    assert.equal(all.get(cat)!.status, 'active', 'another attribute is untouched');
    const active = await t.call<{ facts: Fact[] }>('GET', '/v1/banks/moves/facts?kind=world');
    assert.ok(!active.body.facts.some((f) => f.id === berlin), 'current knowledge leaves the superseded fact out');
    const why = await t.call<{ kind: string; supersededBy: { fact: { id: string } } }>('GET', `/v1/banks/moves/why/${berlin}`);
    assert.equal(why.body.supersededBy.fact.id, paris);
    // The observation holding the old statement tells the move.
    const [obs] = (await t.store.observationsOfFact('moves', paris)).map((e) => e.observationId);
    assert.ok(obs);
    const [o] = await t.store.getObservations('moves', [obs]);
    assert.match(o.text, /^Alice moved to Paris \(2024-02-01\)\. Before that: Alice lives in Berlin/);
  });

  test("the bank's mission steers what is synthesized from the same facts", async () => {
    const story = [
      'The Atlas backend team changed the API spec twice, so the frontend team is blocked.',
      'The PM moved the Atlas deadline back by two weeks.',
      'The Atlas launch timeline slipped to July.',
      'The Atlas frontend and backend teams stopped talking in standups.',
      'The Atlas designers and the backend team argued over who owns the spec, a collaboration problem.',
    ];
    const evidence = new Map<string, Map<string, string[]>>();
    const facets = new Map<string, string[]>();
    for (const [bank, mission] of [
      ['delivery', 'Track project timelines, deadlines and blockers'],
      ['team-health', 'Find collaboration problems between teams'],
    ]) {
      await t.engine.createBank({ id: bank, mission });
      await t.engine.retain(bank, { items: story.map((content, i) => ({ content, timestamp: `2024-05-0${i + 1}T10:00:00Z` })) });
      await t.worker.drain(bank);
      const byText = new Map((await facts(t, bank)).map((f) => [f.id, f.text]));
      const cited = new Map<string, string[]>();
      for (const o of await facts(t, bank, ['observation']))
        cited.set(
          o.text,
          (await t.store.evidenceOf(bank, o.id)).map((e) => byText.get(e.factId)!),
        );
      evidence.set(bank, cited);
      facets.set(
        bank,
        (await facts(t, bank, ['observation'])).map((o) => o.metadata.facet),
      );
    }
    const delivery = evidence.get('delivery')!;
    const health = evidence.get('team-health')!;
    const cites = (m: Map<string, string[]>, text: string): boolean => [...m.values()].some((list) => list.includes(text));
    assert.ok(cites(delivery, story[1]) && cites(delivery, story[2]), 'the delivery bank keeps the deadline and the timeline');
    assert.ok(!cites(health, story[1]) && !cites(health, story[2]), 'the team-health bank does not');
    assert.ok(cites(health, story[3]), 'the team-health bank keeps the teams that stopped talking');
    assert.ok(!cites(delivery, story[3]), 'the delivery bank does not');
    assert.notDeepEqual([...delivery.keys()].sort(), [...health.keys()].sort());
    assert.ok(
      facets.get('delivery')!.every((f) => ['project', 'timelines', 'deadlines', 'blockers'].includes(f)),
      String(facets.get('delivery')),
    );
    assert.ok(
      facets.get('team-health')!.every((f) => ['collaboration', 'problems', 'teams'].includes(f)),
      String(facets.get('team-health')),
    );
  });

  test('the audit chain of an observation reaches the exact source sentence and its document', async () => {
    await t.engine.createBank({ id: 'audit' });
    const content =
      'We met at the harbour cafe. Mira started a pottery course in Lisbon last spring. The pottery course meets every Tuesday evening.';
    await t.engine.retain('audit', {
      items: [{ content, speaker: 'Joe', timestamp: '2024-04-02T09:00:00Z', documentId: 'diary-1', metadata: { page: '7' } }],
    });
    await t.worker.drain('audit');
    const obs = (await facts(t, 'audit', ['observation'])).find((o) => /pottery/.test(o.text));
    assert.ok(obs, 'an observation about the pottery course');
    const chain = await t.call<Chain & { supporting: Array<{ source: { document: { id: string; metadata: Record<string, string> } } }> }>(
      'GET',
      `/v1/banks/audit/observations/${obs.id}`,
    );
    assert.equal(chain.status, 200);
    const sentences = chain.body.supporting.map((l) => l.source?.sentence);
    assert.ok(sentences.includes('Mira started a pottery course in Lisbon last spring.'), JSON.stringify(sentences));
    assert.ok(sentences.includes('The pottery course meets every Tuesday evening.'), JSON.stringify(sentences));
    for (const l of chain.body.supporting) {
      assert.ok(l.source);
      assert.equal(content.slice(l.source.start, l.source.end), l.source.sentence, 'the span is exact within the chunk');
      assert.equal(l.source.documentId, 'diary-1');
      assert.equal(l.source.document.metadata.page, '7');
    }
    const why = await t.call<{ kind: string; supporting: unknown[]; history: ObservationRevision[]; stale: boolean }>(
      'GET',
      `/v1/banks/audit/why/${obs.id}`,
    );
    assert.equal(why.body.kind, 'observation');
    assert.equal(why.body.supporting.length, chain.body.supporting.length);
    assert.ok(why.body.history.length >= 1);
    assert.equal(why.body.stale, false);
    const factId = chain.body.supporting[0].fact.id;
    const whyFact = await t.call<{ kind: string; source: { sentence: string }; observations: Array<{ observation: { id: string } }> }>(
      'GET',
      `/v1/banks/audit/why/${factId}`,
    );
    assert.equal(whyFact.body.kind, 'world');
    assert.equal(whyFact.body.source.sentence, chain.body.supporting[0].source!.sentence);
    assert.deepEqual(
      whyFact.body.observations.map((o) => o.observation.id),
      [obs.id],
    );
    assert.equal((await t.call('GET', '/v1/banks/audit/why/fct_missing')).status, 404);
    assert.equal((await t.call('GET', `/v1/banks/audit/observations/${factId}`)).status, 404, 'a fact is not an observation');
  });

  test('status shows the backlog and its age; a triggered run drains it', async () => {
    await t.engine.createBank({ id: 'status' });
    await t.engine.retain('status', {
      items: [{ content: 'Nora plants tomatoes in her garden. Nora waters the tomatoes every morning.' }],
    });
    const before = await t.call<{ backlog: number; oldestWaitingAt: string | null; oldestWaitingAgeSeconds: number; consolidated: number }>(
      'GET',
      '/v1/banks/status/consolidation',
    );
    assert.equal(before.status, 200);
    assert.equal(before.body.backlog, 2);
    assert.ok(before.body.oldestWaitingAt);
    assert.ok(before.body.oldestWaitingAgeSeconds >= 0);
    const started = await t.call<{ started: boolean }>('POST', '/v1/banks/status/consolidate');
    assert.equal(started.status, 202);
    await t.worker.drain('status');
    const afterRun = await t.call<{
      backlog: number;
      oldestWaitingAt: string | null;
      consolidated: number;
      observations: number;
      rate: { facts: number };
    }>('GET', '/v1/banks/status/consolidation');
    assert.equal(afterRun.body.backlog, 0);
    assert.equal(afterRun.body.oldestWaitingAt, null);
    assert.equal(afterRun.body.consolidated, 2);
    assert.equal(afterRun.body.observations, 1);
    assert.equal(afterRun.body.rate.facts, 2);
    assert.equal((await t.call('GET', '/v1/banks/nope/consolidation')).status, 404);
  });

  test('recall helpers: stale observations, their source facts, and what they said as of a past instant', async () => {
    const obs = (await facts(t, 'story', ['observation']))[0];
    assert.equal((await staleObservations(t.store, 'story', [obs])).size, 0);
    await retainOne(t, 'story', { content: 'The LLM search usage doubled after the model switch.', timestamp: '2024-04-20T10:00:00Z' });
    assert.ok((await staleObservations(t.store, 'story', [obs])).has(obs.id), 'a waiting fact about its entity makes it stale');
    const sources = (await sourceFactsOf(t.store, 'story', [obs.id])).get(obs.id)!;
    assert.deepEqual(
      sources.map((s) => s.role),
      ['supports', 'contradicts', 'contradicts'],
    );
    assert.equal(sources[0].source?.sentence, STORY[0].content);
    const history = await t.store.historyOf('story', obs.id);
    assert.equal(await observationTextAsOf(t.store, 'story', obs.id, history[0].at), history[0].newText);
    assert.equal(await observationTextAsOf(t.store, 'story', obs.id, '2000-01-01T00:00:00Z'), null);
    const extras = (
      await observationExtras(
        t.store,
        'story',
        [
          { id: obs.id, kind: 'observation' },
          { id: 'x', kind: 'world' },
        ],
        { sourceFacts: true, asOf: history[1].at },
      )
    ).get(obs.id);
    assert.ok(extras);
    assert.equal(extras.stale, true);
    assert.equal(extras.proofCount, 1);
    assert.equal(extras.sourceFacts?.length, 3);
    assert.equal(extras.textAsOf, history[1].newText);
    await t.worker.drain('story');
    assert.equal((await staleObservations(t.store, 'story', [obs])).size, 0);
  });
});
