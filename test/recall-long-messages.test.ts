// Recall over a technical chat with long messages, over real HTTP on the real embedded store: results cover
// distinct messages (at most `perSource` facts each, the cap documented and liftable), a first-person question
// ranks what the user said above the agent's long replies that repeat it, and a standing instruction joins the
// results of a later request it bears on, above a message that shares more of the request's words.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './support/server.ts';

type Result = {
  id: string;
  text: string;
  kind: string;
  speaker: string | null;
  source: { itemId: string; metadata: Record<string, string> } | null;
};
type Recall = { results: Result[] };

/** A long agent reply about the nightly build: many sentences that all share its words. */
const LONG_REPLY = [
  'Right now how long your nightly build takes depends on how long the webpack step takes.',
  'The nightly build runs the full webpack production build, then the test suite, then uploads the bundle.',
  'The nightly build spends most of its time in the webpack minification step.',
  'You can make the nightly build faster by caching the webpack build output between runs.',
  'Another way to speed up the nightly build is to run the test suite of the build in parallel shards.',
  'The nightly build could also skip source maps for the webpack build when nobody reads them.',
  'Finally, the nightly build may use a faster minifier such as esbuild for the webpack build.',
].join(' ');

describe('recall on long technical messages', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer();
    assert.equal((await s.call('POST', '/v1/banks', { id: 'long' })).status, 201);
    const items = [
      { key: 'build', role: 'user', content: 'The nightly build is at 40 minutes, it used to be 12.' },
      { key: 'reply', role: 'assistant', content: LONG_REPLY },
      { key: 'rule', role: 'user', content: 'Always include a code example when I ask about handling errors in asynchronous functions.' },
      { key: 'db', role: 'user', content: 'Our PostgreSQL database holds 3 million rows of orders and the nightly report query is slow.' },
      {
        key: 'team',
        role: 'user',
        content: 'I manage the operations team, and the errors that happen during operations land in my code reviews.',
      },
      {
        key: 'dbreply',
        role: 'assistant',
        content: 'Add an index on the orders table for the report query, and check the query plan with EXPLAIN ANALYZE.',
      },
      // Messages sharing more of the later question's words than the instruction does.
      { key: 'dash', role: 'user', content: 'The operations dashboard shows errors that happen in my billing code during operations.' },
      {
        key: 'reviews',
        role: 'user',
        content: 'I manage code reviews, and errors that happen in my code during operations get fixed there.',
      },
      { key: 'queue', role: 'user', content: 'My code manages errors that happen during queue operations with retries.' },
      { key: 'deploys', role: 'user', content: 'Errors that happen during deploy operations in my code are rare.' },
    ];
    for (const [i, it] of items.entries()) {
      const r = await s.call<{ result: unknown }>('POST', '/v1/banks/long/memories', {
        items: [
          {
            content: it.content,
            speaker: it.role,
            role: it.role,
            timestamp: `2024-03-${String(i + 1).padStart(2, '0')}T10:00:00Z`,
            metadata: { key: it.key },
          },
        ],
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
  });
  after(async () => s.close());

  const recall = async (body: Record<string, unknown>): Promise<Result[]> => {
    const r = await s.call<Recall>('POST', '/v1/banks/long/recall', { limit: 20, ...body });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.results;
  };
  const perMessage = (results: Result[]): Map<string, number> => {
    const n = new Map<string, number>();
    for (const r of results) if (r.source) n.set(r.source.metadata.key, (n.get(r.source.metadata.key) ?? 0) + 1);
    return n;
  };

  test('at most two facts of one message by default; perSource 0 lifts the cap', async () => {
    const capped = perMessage(await recall({ query: 'how to make the nightly webpack build faster' }));
    assert.ok((capped.get('reply') ?? 0) <= 2, `the long reply gave ${capped.get('reply')} results`);
    assert.ok(capped.size >= 2, 'results come from more than one message');
    const open = perMessage(await recall({ query: 'how to make the nightly webpack build faster', perSource: 0 }));
    assert.ok((open.get('reply') ?? 0) > 2, `without the cap the long reply gives more: ${open.get('reply')}`);
    const one = perMessage(await recall({ query: 'how to make the nightly webpack build faster', perSource: 1 }));
    assert.ok(
      [...one.values()].every((n) => n === 1),
      'perSource 1: one result per message',
    );
  });

  test('a first-person question ranks what the user said above the replies that repeat it', async () => {
    const results = await recall({ query: 'How long does my nightly build take now?' });
    assert.ok(results.length > 0);
    assert.equal(results[0].source?.metadata.key, 'build', `first: ${results[0].text}`);
    // The same words asked about the agent's advice, not in the first person, leave the agent's reply in reach.
    const advice = perMessage(await recall({ query: 'Which ways speed up the nightly webpack build?' }));
    assert.ok(advice.has('reply'));
  });

  test('a standing instruction joins the results of a request it bears on', async () => {
    // The question shares more words with another message than with the instruction: by words alone that one leads.
    const results = await recall({ query: 'How can I manage errors that happen during operations in my code?' });
    // Standing statements are placed from rank 3 on (standingRank), after the best matches by words and meaning.
    const at = results.findIndex((r) => r.source?.metadata.key === 'rule');
    assert.ok(at >= 0 && at <= 3, `the instruction at ${at}: ${results.map((r) => r.source?.metadata.key).join(', ')}`);
    assert.ok(results.some((r) => r.source?.metadata.key === 'team'));
    // And stays out of requests it does not bear on.
    const other = await recall({ query: 'How many rows of orders are in the PostgreSQL database?' });
    assert.ok(!other.slice(0, 4).some((r) => r.source?.metadata.key === 'rule'), 'the instruction is not forced into unrelated recalls');
  });

  test("group: 'source' returns each result's whole passage once, with the result's span, within maxTokens", async () => {
    type Passage = {
      chunkId: string;
      itemId: string;
      text: string;
      tokens: number;
      results: Array<{ id: string; start: number; end: number }>;
    };
    const call = async (body: Record<string, unknown>): Promise<{ results: Result[]; passages: Passage[]; tokens: number }> => {
      const r = await s.call<{ results: Result[]; passages: Passage[]; tokens: number }>('POST', '/v1/banks/long/recall', {
        limit: 20,
        ...body,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    };
    const grouped = await call({ query: 'how to make the nightly webpack build faster', group: 'source' });
    assert.ok(grouped.passages.length >= 2);
    const reply = grouped.passages.find((p) => p.text === LONG_REPLY);
    assert.ok(reply, 'the long reply comes back whole');
    assert.equal(new Set(grouped.passages.map((p) => p.chunkId)).size, grouped.passages.length, 'each passage once');
    for (const p of grouped.passages)
      for (const hit of p.results) {
        const result = grouped.results.find((r) => r.id === hit.id);
        assert.ok(result, 'every passage result is a result');
        assert.ok(hit.end > hit.start && hit.end <= p.text.length);
      }
    assert.equal(
      grouped.tokens,
      grouped.passages.reduce((n, p) => n + p.tokens, 0),
      'the budget counts the passages',
    );
    // A budget that holds only the first passage returns only it and its results.
    const first = grouped.passages[0];
    const tight = await call({ query: 'how to make the nightly webpack build faster', group: 'source', maxTokens: first.tokens });
    assert.deepEqual(
      tight.passages.map((p) => p.chunkId),
      [first.chunkId],
    );
    assert.ok(tight.results.every((r) => first.results.some((h) => h.id === r.id)));
    // Without the option, no passages.
    assert.equal((await call({ query: 'nightly build' })).passages, undefined);
    const bad = await s.call<{ error: { message: string } }>('POST', '/v1/banks/long/recall', { query: 'build', group: 'message' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /group/);
  });

  test('perSource is validated at the edge', async () => {
    const r = await s.call<{ error: { message: string } }>('POST', '/v1/banks/long/recall', { query: 'build', perSource: -1 });
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /perSource/);
  });
});
