// Offline observations a person would sign, end to end on the real embedded store over real HTTP: a conversation
// where Maya moves three times, changes manager and mentions her sister, her food and her hobbies ends with
// observations that each keep to one subject (her home, her manager, ...), with supersession only within one
// attribute; "Where does Maya live now?" is answered with Porto first, by recall and by offline reflect; a product
// story told months apart is one observation with three revisions, retained at once or in three calls; an
// observation whose facts were all superseded is stale and ranks below the current facts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../src/api/app.ts';
import { coreRoutes } from '../src/api/routes/index.ts';
import { reflectRoutes } from '../src/api/routes/reflect.ts';
import type { Fact, ObservationRevision } from '../src/core/types.ts';
import { OfflineAnswerer } from '../src/reflect/offline-answerer.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';
import { listen, type Listening } from './support/http.ts';

const MAYA: Array<[string, string]> = [
  ['Maya', 'Hi! I just started a new job at a design studio in Leeds.'],
  ['Sam', 'Congrats! How is it going?'],
  ['Maya', 'I live in Leeds now, close to the office.'],
  ['Sam', 'That sounds great.'],
  ['Maya', "My manager is Ines Costa, she's very kind."],
  ['Maya', 'My sister Chloe lives in Manchester.'],
  ['Sam', 'Thanks for telling me, I am proud of you!'],
  ['Maya', 'I love climbing on weekends at the bouldering gym.'],
  ['Maya', 'I moved to Porto last month for a remote role.'],
  ['Maya', 'My favourite food here is pastel de nata.'],
  ['Sam', 'Do you like Porto?'],
  ['Maya', 'I am learning Portuguese every evening with a tutor.'],
  ['Maya', 'My new manager at the remote role is Rui Almeida.'],
  ['Maya', 'I moved to Lisbon yesterday.'],
  ['Maya', 'Actually I now live in Porto again, Lisbon was too expensive.'],
];

/** What each of Maya's facts is about; an observation must keep to one of these. */
const SUBJECTS: Array<[string, RegExp]> = [
  ['home', /\b(lives? in|moved to)\b/],
  ['manager', /\bmanager\b/],
  ['job', /\bdesign studio\b/],
  ['sister', /\bChloe\b/],
  ['food', /\bpastel de nata\b/],
  ['climbing', /\bclimbing\b/],
  ['portuguese', /\bPortuguese\b/],
];
const subjectOf = (f: Fact): string =>
  f.text.includes('Chloe') ? 'sister' : (SUBJECTS.find(([, re]) => re.test(f.text))?.[0] ?? `other: ${f.text}`);

const PRODUCT = [
  ['Priya', 'Our LLM-powered search feature improved engagement by 30% this quarter.'],
  ['Priya', 'Bad news: API costs for the LLM search feature spiked 5x last month.'],
  ['Priya', 'We switched the LLM search feature to a cheaper model, with a 10% accuracy loss.'],
] as const;

describe('offline beliefs', () => {
  let t: TestEngine;
  let http: Listening;
  before(async () => {
    t = await openEngine();
    http = await listen(createApp(t.engine, { routes: [...coreRoutes(t.engine), reflectRoutes(t.engine, () => new OfflineAnswerer())] }));
    await t.engine.createBank({ id: 'maya' });
    const items = MAYA.map(([speaker, content], i) => ({
      speaker,
      content,
      timestamp: new Date(Date.UTC(2024, 0, 1 + i * 7, 10)).toISOString(),
    }));
    await t.engine.retain('maya', { items });
    await t.worker.drain('maya');
  });
  after(async () => {
    await http.close();
    await t.close();
  });

  const all = async (bank: string): Promise<Fact[]> =>
    (await t.store.listFacts(bank, { includeSuperseded: true, limit: 1000, offset: 0 })).facts;
  const evidenceOf = async (bank: string, id: string): Promise<Fact[]> =>
    t.store.getFacts(
      bank,
      (await t.store.evidenceOf(bank, id)).map((e) => e.factId),
    );

  test("Maya's unrelated facts never share an observation; greetings and questions are not evidence", async () => {
    const observations = (await all('maya')).filter((f) => f.kind === 'observation');
    assert.ok(observations.length >= 5, `${observations.length} observations`);
    for (const o of observations) {
      const evidence = await evidenceOf('maya', o.id);
      const subjects = new Set(evidence.map(subjectOf));
      assert.equal(subjects.size, 1, `one subject per observation: ${o.text}\n  ${evidence.map((f) => f.text).join('\n  ')}`);
      for (const f of evidence) assert.doesNotMatch(f.text, /^(Congrats|Thanks|That sounds great)\b|\?$/, `${f.text} is not evidence`);
      for (const r of await t.store.historyOf('maya', o.id)) assert.ok(r.factIds.every((id) => evidence.some((f) => f.id === id)));
    }
  });

  test('supersession stays within one attribute of one subject', async () => {
    const facts = await all('maya');
    const status = (re: RegExp): string[] => facts.filter((f) => f.kind !== 'observation' && re.test(f.text)).map((f) => f.status);
    assert.deepEqual(status(/Ines Costa/), ['superseded'], 'the old manager is replaced by the new one');
    assert.deepEqual(status(/Rui Almeida/), ['active']);
    assert.deepEqual(status(/pastel de nata/), ['active'], 'food is not a manager');
    assert.deepEqual(status(/Chloe lives in Manchester/), ['active'], "her sister's home is not hers");
    assert.deepEqual(status(/design studio/), ['active']);
    assert.deepEqual(status(/Lisbon yesterday/), ['superseded']);
    assert.deepEqual(status(/Porto again/), ['active']);
    for (const f of facts.filter((x) => x.status === 'superseded')) {
      const by = facts.find((x) => x.id === f.supersededBy);
      assert.ok(by && subjectOf(by) === subjectOf(f), `${f.text} superseded by ${by?.text}`);
    }
  });

  test('where Maya lives is one observation, leading with the newest city, in readable third person', async () => {
    const observations = (await all('maya')).filter((f) => f.kind === 'observation');
    const home = observations.filter((o) => /lives in|moved to/.test(o.text) && !o.text.includes('Chloe'));
    assert.equal(home.length, 1, home.map((o) => o.text).join(' | '));
    assert.match(
      home[0].text,
      /^Maya now lives in Porto again, Lisbon was too expensive \(2024-04-08\)\. Before that: Maya lives in Leeds/,
    );
    const history = await t.call<{ history: ObservationRevision[] }>('GET', `/v1/banks/maya/observations/${home[0].id}/history`);
    assert.deepEqual(
      history.body.history.map((r) => r.reason),
      ['created', 'contradicted', 'contradicted', 'contradicted'],
    );
    for (const o of observations) assert.doesNotMatch(o.text, /\bMaya (live|love|am|are)\b|\bI\b|\byou\b|^(Hi|Congrats|Thanks)\b/, o.text);
  });

  test('"Where does Maya live now?" leads with Porto in recall and in offline reflect, citing the fact', async () => {
    const recall = await http.call<{ results: Array<{ id: string; text: string; kind: string }> }>('POST', '/v1/banks/maya/recall', {
      query: 'Where does Maya live now?',
      limit: 5,
    });
    assert.equal(recall.status, 200);
    assert.match(
      recall.body.results[0].text,
      /^(Actually )?Maya now lives in Porto again/,
      JSON.stringify(recall.body.results.map((r) => r.text)),
    );
    const reflect = await http.call<{ answer: string; basedOn: { facts: string[] } }>('POST', '/v1/banks/maya/reflect', {
      query: 'Where does Maya live now?',
    });
    assert.equal(reflect.status, 200, JSON.stringify(reflect.body));
    const lead = reflect.body.answer.split('\n')[1];
    assert.match(lead, /Porto again/, reflect.body.answer);
    const cited = /\[(fct_[0-9a-z]+)\]/.exec(lead)?.[1];
    assert.ok(cited && reflect.body.basedOn.facts.includes(cited), `the lead cites the fact: ${lead}`);
    const [fact] = await t.store.getFacts('maya', [cited]);
    assert.match(fact.text, /Porto again/);
  });

  for (const calls of ['one', 'three'] as const) {
    test(`the product story is one observation with three revisions when retained in ${calls} call(s)`, async () => {
      const bank = `product-${calls}`;
      await t.engine.createBank({ id: bank });
      const items = PRODUCT.map(([speaker, content], i) => ({
        speaker,
        content,
        timestamp: new Date(Date.UTC(2025, i, 10)).toISOString(),
      }));
      if (calls === 'one') await t.engine.retain(bank, { items });
      else
        for (const item of items) {
          await t.engine.retain(bank, { items: [item] });
          await t.worker.drain(bank);
        }
      await t.worker.drain(bank);
      const facts = await all(bank);
      const observations = facts.filter((f) => f.kind === 'observation');
      assert.equal(observations.length, 1, observations.map((o) => o.text).join(' | '));
      const evidence = await evidenceOf(bank, observations[0].id);
      assert.equal(evidence.length, 3, 'backed by all three facts');
      const history = await t.store.historyOf(bank, observations[0].id);
      assert.equal(history.length, 3, history.map((r) => r.reason).join(','));
      assert.equal(history[0].reason, 'created');
      assert.match(observations[0].text, /^Priya's team switched|^We switched|switched the LLM search feature to a cheaper model/);
      assert.match(observations[0].text, /Before that: .*engagement by 30%.*; then .*spiked 5x/);
    });
  }

  test('an observation whose facts were all superseded is stale and ranks below the current facts', async () => {
    await t.engine.createBank({ id: 'outdated' });
    await t.engine.retain('outdated', {
      items: [{ content: 'Noor works at the Lisbon aquarium as a marine biologist.', timestamp: '2023-01-10T10:00:00Z' }],
    });
    await t.worker.drain('outdated');
    const [old] = (await all('outdated')).filter((f) => f.kind !== 'observation');
    const [obs] = (await all('outdated')).filter((f) => f.kind === 'observation');
    assert.ok(obs, 'the first fact made an observation');
    const retained = await t.engine.retain('outdated', {
      items: [{ content: 'Noor works at the Porto aquarium as a marine biologist.', timestamp: '2024-01-10T10:00:00Z' }],
    });
    const [newer] = retained.result?.factIds ?? [];
    // What an LLM consolidator may decide: the old fact superseded, the observation left as it was.
    const claim = await t.store.claimUnconsolidated('outdated', 'test-worker', 10, 60_000);
    assert.ok(claim);
    await t.store.applyObservations({
      bankId: 'outdated',
      observations: [],
      vectors: [],
      embedder: t.engine.embedderId,
      evidence: [],
      revisions: [],
      removeObservationIds: [],
      supersede: [{ factId: old.id, by: newer, at: new Date().toISOString() }],
      consolidatedFactIds: claim.factIds,
      workerId: 'test-worker',
    });
    const r = await http.call<{ results: Array<{ id: string; kind: string; stale?: boolean }> }>('POST', '/v1/banks/outdated/recall', {
      query: 'Where does Noor work as a marine biologist?',
    });
    const ids = r.body.results.map((x) => x.id);
    assert.ok(ids.includes(obs.id) && ids.includes(newer), JSON.stringify(r.body.results));
    assert.ok(ids.indexOf(newer) < ids.indexOf(obs.id), 'the current fact ranks above the outdated observation');
    assert.equal(r.body.results.find((x) => x.id === obs.id)?.stale, true);
  });
  test('two answers sharing a frame ("This results in", "If you are looking for") replace nothing', async () => {
    await t.engine.createBank({ id: 'answers' });
    const answers = [
      'Connection pooling in PostgreSQL keeps a few connections open and hands them out. This results in fewer open connections on the server.',
      'An index on created_at lets PostgreSQL skip the full scan. This results in a nightly report that takes 40 seconds.',
      'If you are looking for a PostgreSQL backup tool, pg_dump is the simplest start.',
      'If you are looking for PostgreSQL replication, streaming replication is built in.',
      'It runs in the PostgreSQL background writer.',
      'It runs in the PostgreSQL autovacuum launcher.',
    ];
    await t.engine.retain('answers', {
      items: answers.map((content, i) => ({
        speaker: 'assistant',
        content,
        timestamp: new Date(Date.UTC(2024, 2, 1 + i, 10)).toISOString(),
      })),
    });
    await t.worker.drain('answers');
    const facts = (await all('answers')).filter((f) => f.kind !== 'observation');
    assert.ok(facts.length >= answers.length, `${facts.length} facts`);
    const superseded = facts.filter((f) => f.status !== 'active').map((f) => f.text);
    assert.deepEqual(superseded, [], 'no answer replaces another');
  });
});
