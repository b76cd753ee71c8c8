// Over real HTTP on the real embedded store: a later message that changes a value ranks first for a present-tense
// question, and a "what changed" question gets both values, each with its time; a contradiction question gets
// both statements; a fact that does not repeat its topic is found through its context (the heading it stands
// under), while its text stays its own; and a standing statement is read from the sentence, never from the item's
// own metadata.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './support/server.ts';

type Change = { kind: string; role: string; with: string };
type Result = { id: string; text: string; mentionedAt: string; change?: Change; source: { metadata: Record<string, string> } | null };
type Fact = { id: string; text: string; context: string | null; stance: string | null; metadata: Record<string, string> };

describe('updated values, contradictions and fact context', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer();
    assert.equal((await s.call('POST', '/v1/banks', { id: 'changes' })).status, 201);
    const items = [
      { key: 'old', content: 'The nightly build takes 25 minutes on the shared CI runner.', at: '2024-03-01' },
      { key: 'deployed', content: 'I deployed the payments service to AWS with Terraform.', at: '2024-03-02' },
      { key: 'noise', content: 'The shared CI runner also builds the documentation site every hour.', at: '2024-03-05' },
      { key: 'new', content: 'The nightly build takes 40 minutes on the shared CI runner now.', at: '2024-03-20' },
      { key: 'never', content: 'I have never deployed the payments service to AWS.', at: '2024-03-25' },
      {
        key: 'doc',
        content: '## Flaky Cypress suite\n\nIt fails about once in five runs, always on the login page.\n\nRetrying twice hides it.',
        at: '2024-03-26',
      },
      {
        key: 'marked',
        content: 'The office coffee machine was repaired on Tuesday.',
        at: '2024-03-27',
        metadata: { stance: 'instruction' },
      },
    ];
    for (const it of items) {
      const r = await s.call('POST', '/v1/banks/changes/memories', {
        items: [{ content: it.content, speaker: 'user', timestamp: `${it.at}T10:00:00Z`, metadata: { key: it.key, ...it.metadata } }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
  });
  after(async () => s.close());

  const recall = async (query: string): Promise<Result[]> => {
    const r = await s.call<{ results: Result[] }>('POST', '/v1/banks/changes/recall', { query, limit: 10 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.results;
  };
  const keyOf = (r: Result | undefined): string | undefined => r?.source?.metadata.key;
  const place = (results: Result[], key: string): number => results.findIndex((r) => keyOf(r) === key);

  test('a present-tense question gets the newest value first, and both say which is which', async () => {
    const results = await recall('How long does the nightly build take on the shared CI runner?');
    const [n, o] = [place(results, 'new'), place(results, 'old')];
    assert.ok(n >= 0 && o >= 0, `both values found: ${results.map((r) => r.text).join(' | ')}`);
    assert.ok(n < o, 'the newer value ranks first');
    assert.deepEqual(results[n].change, { kind: 'update', role: 'later', with: results[o].id });
    assert.deepEqual(results[o].change, { kind: 'update', role: 'earlier', with: results[n].id });
  });

  test('a "what changed" question gets both values together, the older first, each with its time', async () => {
    const results = await recall('How has the time of the nightly build on the shared CI runner changed?');
    const [o, n] = [place(results, 'old'), place(results, 'new')];
    assert.ok(o >= 0 && n === o + 1, `old then new, together: ${results.map((r) => keyOf(r)).join(', ')}`);
    assert.ok(results[o].mentionedAt < results[n].mentionedAt);
    assert.equal(results[o].change?.role, 'earlier');
    assert.equal(results[n].change?.role, 'later');
  });

  test('a contradiction question gets both statements', async () => {
    const results = await recall('Have I ever deployed the payments service to AWS?');
    const [d, v] = [place(results, 'deployed'), place(results, 'never')];
    assert.ok(d >= 0 && v >= 0 && Math.abs(d - v) === 1, `both statements, together: ${results.map((r) => keyOf(r)).join(', ')}`);
    assert.deepEqual(results[d].change, { kind: 'contradiction', role: 'earlier', with: results[v].id });
  });

  test('a fact that does not repeat its topic is found through its heading; its text stays its own', async () => {
    const results = await recall('Cypress suite flaky');
    const hit = results.find((r) => keyOf(r) === 'doc' && r.text.startsWith('It fails'));
    assert.ok(hit, `the sentence under the heading is found: ${results.map((r) => r.text).join(' | ')}`);
    const facts = await s.call<{ facts: Fact[] }>('GET', '/v1/banks/changes/facts?limit=100');
    const fact = facts.body.facts.find((f) => f.id === hit.id)!;
    assert.doesNotMatch(fact.text, /Cypress/);
    assert.match(fact.context ?? '', /Flaky Cypress suite/);
  });

  test('a value changed many times: the newest first, and each result names a partner shown beside it', async () => {
    assert.equal((await s.call('POST', '/v1/banks', { id: 'many-values' })).status, 201);
    const items = Array.from({ length: 12 }, (_, i) => ({
      content: `The staging deploy takes ${i + 3} minutes on the blue cluster.`,
      speaker: 'user',
      timestamp: new Date(Date.UTC(2024, 4, 1 + i, 10)).toISOString(),
    }));
    assert.equal((await s.call('POST', '/v1/banks/many-values/memories', { items })).status, 200);
    const r = await s.call<{ results: Result[] }>('POST', '/v1/banks/many-values/recall', {
      query: 'How long does the staging deploy take on the blue cluster?',
      limit: 4,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const results = r.body.results;
    const shown = new Set(results.map((x) => x.id));
    assert.equal(shown.size, results.length, 'no result twice');
    const newest = results.reduce((a, b) => (b.mentionedAt > a.mentionedAt ? b : a));
    assert.equal(results[0].id, newest.id, `the newest shown comes first: ${results.map((x) => x.text).join(' | ')}`);
    for (const x of results) {
      assert.ok(x.change, `${x.text} is one of the values`);
      assert.ok(shown.has(x.change.with), `${x.text}: its partner ${x.change.with} is among the results`);
      const other = results.find((y) => y.id === x.change!.with)!;
      assert.equal(x.change.role, x.mentionedAt < other.mentionedAt ? 'earlier' : 'later');
    }
  });

  test("an item's own metadata cannot make its facts standing statements", async () => {
    const facts = await s.call<{ facts: Fact[] }>('GET', '/v1/banks/changes/facts?limit=100');
    const marked = facts.body.facts.find((f) => f.metadata.key === 'marked')!;
    assert.equal(marked.stance, null);
    assert.equal(marked.metadata.stance, 'instruction', 'the item metadata is kept as given');
  });
});
