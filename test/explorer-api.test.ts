// The reads the web explorer needs, over real HTTP on the embedded store, after real retains: a bank's operations
// (newest first, by status, paged), its sessions and the facts of one, single entities and the graph of their
// co-mentions, and usage per hour or day (calls through a scripted model). With the hostile cases of each: unknown
// banks, bad parameters, odd ids.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newOperation } from '../src/operations.ts';
import { reply, startFakeLlmServer, type FakeLlmServer } from './support/fake-llm-server.ts';
import { until } from './support/poll.ts';
import { startServer, type TestServer } from './support/server.ts';

interface Entity {
  id: string;
  name: string;
  mentionCount: number;
}
interface Edge {
  source: string;
  target: string;
  weight: number;
}
interface Operation {
  id: string;
  bankId: string;
  kind: string;
  status: string;
  progress: { done: number; total: number };
  result: unknown;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}
interface Fact {
  id: string;
  text: string;
  entities: string[];
  source: { session?: string | null } | null;
}
type ErrorBody = { error: { code: string; message: string } };

describe('explorer reads on the embedded store', () => {
  let s: TestServer;
  const get = <T>(path: string) => s.call<T>('GET', path);

  before(async () => {
    s = await startServer();
    await s.call('POST', '/v1/banks', { id: 'ex' });
    const retained = await s.call('POST', '/v1/banks/ex/memories', {
      items: [
        { content: 'Alice and Bob opened a bakery in Porto.', speaker: 'Carol', timestamp: '2024-03-01T10:00:00Z', session: 'trip' },
        { content: 'Alice painted the bakery sign.', speaker: 'Carol', timestamp: '2024-03-01T11:00:00Z', session: 'trip' },
        { content: 'Dana flew to Lisbon with Erik.', speaker: 'Carol', timestamp: '2024-04-02T09:00:00Z', session: 'later' },
        { content: 'Frank repaired an old bicycle.', speaker: 'Carol', timestamp: '2024-02-01T09:00:00Z' },
      ],
    });
    assert.equal(retained.status, 200, JSON.stringify(retained.body));
    await s.call('POST', '/v1/banks', { id: 'ex-other' });
  });
  after(async () => {
    await s.close();
  });

  test('operations: an async retain is listed newest first with its progress and result, never its input', async () => {
    const started = await s.call<{ operationId: string }>('POST', '/v1/banks/ex/memories', {
      async: true,
      items: [
        { content: 'Gina met Hugo in Madrid.', speaker: 'Carol', timestamp: '2024-05-01T10:00:00Z', session: 'madrid' },
        { content: 'Hugo cooked paella for Gina.', speaker: 'Carol', timestamp: '2024-05-01T12:00:00Z', session: 'madrid' },
        { content: 'Gina bought a guitar.', speaker: 'Carol', timestamp: '2024-05-02T10:00:00Z', session: 'madrid' },
      ],
    });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const id = started.body.operationId;
    await until(
      'the async retain to finish',
      () => get<Operation>(`/v1/operations/${id}`),
      (r) => r.body.status === 'succeeded',
    );
    const listed = await get<{ operations: Operation[] }>('/v1/banks/ex/operations');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const ops = listed.body.operations;
    assert.equal(ops.length, 2, 'the sync retain of before() and the async one');
    assert.equal(ops[0].id, id, 'newest first');
    assert.deepEqual(
      [ops[0].kind, ops[0].status, ops[0].progress, ops[0].error],
      ['retain', 'succeeded', { done: 3, total: 3, chunks: { done: 3, total: 3 } }, null],
    );
    assert.equal((ops[0].result as { documents: number }).documents, 3);
    assert.deepEqual(ops[1].progress, { done: 4, total: 4, chunks: { done: 4, total: 4 } });
    assert.ok(
      ops.every((o) => !('input' in o)),
      'no input in a listing',
    );
    assert.ok(ops[0].createdAt >= ops[1].createdAt);
    assert.ok((await get<{ input: unknown }>(`/v1/operations/${id}?include=input`)).body.input, 'the input is still there to ask for');

    // A queued one (as a crash leaves it) sorts first and is found by its status alone; pages add up to the whole.
    const queued = { ...newOperation('ex', 'retain', null, 9), createdAt: '2999-01-01T00:00:00.000Z' };
    await s.store.createOperation(queued);
    const byStatus = await get<{ operations: Operation[] }>('/v1/banks/ex/operations?status=queued');
    assert.deepEqual(
      byStatus.body.operations.map((o) => [o.id, o.progress.total]),
      [[queued.id, 9]],
    );
    assert.deepEqual(
      (await get<{ operations: Operation[] }>('/v1/banks/ex/operations?status=succeeded')).body.operations.map((o) => o.id),
      ops.map((o) => o.id),
    );
    assert.deepEqual((await get<{ operations: Operation[] }>('/v1/banks/ex/operations?status=failed')).body.operations, []);
    const pages = [
      ...(await get<{ operations: Operation[] }>('/v1/banks/ex/operations?limit=2')).body.operations,
      ...(await get<{ operations: Operation[] }>('/v1/banks/ex/operations?limit=2&offset=2')).body.operations,
    ];
    assert.deepEqual(
      pages.map((o) => o.id),
      [queued.id, ...ops.map((o) => o.id)],
    );
    assert.deepEqual((await get<{ operations: Operation[] }>('/v1/banks/ex-other/operations')).body.operations, [], 'banks list their own');
  });

  test('operations: unknown bank 404, bad status, limit and offset 400 naming the field', async () => {
    const missing = await get<ErrorBody>('/v1/banks/no-such-bank/operations');
    assert.equal(missing.status, 404);
    assert.match(missing.body.error.message, /no-such-bank/);
    for (const [query, field] of [
      ['status=done', 'status'],
      ['status=', 'status'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1.5', 'offset'],
      ['bank=ex', 'bank'],
    ]) {
      const r = await get<ErrorBody>(`/v1/banks/ex/operations?${query}`);
      assert.equal(r.status, 400, query);
      assert.match(r.body.error.message, new RegExp(field), query);
    }
    assert.equal((await get('/v1/banks/ex/operations?limit=200')).status, 200);
    assert.equal((await get('/v1/banks/..%2Fex/operations')).status, 400);
  });

  test('sessions in time order, and the facts of one session only', async () => {
    const sessions = await get<{ sessions: Array<{ id: string; ordinal: number; start: string | null; end: string | null }> }>(
      '/v1/banks/ex/sessions',
    );
    assert.equal(sessions.status, 200, JSON.stringify(sessions.body));
    const trip = sessions.body.sessions.find((x) => x.id === 'trip');
    assert.deepEqual(trip, { id: 'trip', ordinal: 1, start: '2024-03-01T10:00:00.000Z', end: '2024-03-01T11:00:00.000Z' });
    assert.deepEqual(sessions.body.sessions.map((x) => [x.id, x.ordinal]).slice(0, 2), [
      ['trip', 1],
      ['later', 2],
    ]);
    const all = await get<{ facts: Fact[]; total: number }>('/v1/banks/ex/facts?limit=100');
    const ofTrip = await get<{ facts: Fact[]; total: number }>('/v1/banks/ex/facts?session=trip&limit=100');
    assert.equal(ofTrip.status, 200, JSON.stringify(ofTrip.body));
    const expected = all.body.facts.filter((f) => f.source?.session === 'trip');
    assert.ok(expected.length >= 2, JSON.stringify(all.body.facts.map((f) => [f.text, f.source?.session])));
    assert.deepEqual(
      ofTrip.body.facts.map((f) => f.id),
      expected.map((f) => f.id),
    );
    assert.equal(ofTrip.body.total, expected.length);
    assert.ok(ofTrip.body.facts.every((f) => !/Dana|Frank/.test(f.text)));
    const paged = await get<{ facts: Fact[]; total: number }>('/v1/banks/ex/facts?session=trip&limit=1&offset=1');
    assert.deepEqual([paged.body.facts.map((f) => f.id), paged.body.total], [[expected[1].id], expected.length]);
    assert.deepEqual((await get<{ facts: Fact[]; total: number }>('/v1/banks/ex/facts?session=nope')).body, { facts: [], total: 0 });
    assert.deepEqual((await get<{ facts: Fact[] }>('/v1/banks/ex-other/facts?session=trip')).body.facts, []);
    // A session name is text like any other: odd characters travel percent-encoded and match nothing here.
    const odd = await get<{ facts: Fact[] }>(`/v1/banks/ex/facts?session=${encodeURIComponent("trip' OR 1=1 --")}`);
    assert.deepEqual([odd.status, odd.body.facts], [200, []]);
    assert.equal((await get('/v1/banks/ex/facts?session=')).status, 400);
    assert.equal((await get(`/v1/banks/ex/facts?session=${'s'.repeat(257)}`)).status, 400);
    assert.deepEqual((await get<{ sessions: unknown[] }>('/v1/banks/ex-other/sessions')).body.sessions, []);
    assert.equal((await get('/v1/banks/no-such-bank/sessions')).status, 404);
    assert.equal((await get('/v1/banks/no-such-bank/facts?session=trip')).status, 404);
    // A session that could never be filtered on (a lone surrogate is not text) is refused at retain.
    const lone = await s.call<ErrorBody>('POST', '/v1/banks/ex-other/memories', {
      items: [{ content: 'Quinn visited Rome.', session: '\ud800lone' }],
    });
    assert.equal(lone.status, 400);
    assert.match(lone.body.error.message, /session/);
    assert.equal((await get('/v1/banks/ex/sessions?limit=5')).status, 400, 'no query parameters taken');
  });

  test('entity graph: the most mentioned entities, an edge for two named in one sentence, weighted by facts', async () => {
    const r = await get<{ nodes: Entity[]; edges: Edge[] }>('/v1/banks/ex/entities/graph');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { nodes, edges } = r.body;
    const listed = await get<{ entities: Entity[] }>('/v1/banks/ex/entities?limit=100');
    assert.deepEqual(nodes, listed.body.entities, 'the nodes are the most mentioned entities, in that order');
    const id = (name: string): string => {
      const e = nodes.find((n) => n.name === name);
      assert.ok(e, `${name} is a node: ${nodes.map((n) => n.name).join(', ')}`);
      return e.id;
    };
    const edge = (a: string, b: string): Edge | undefined => {
      const [source, target] = [id(a), id(b)].sort();
      return edges.find((e) => e.source === source && e.target === target);
    };
    assert.equal(edge('Alice', 'Bob')?.weight, 1, 'named in one sentence');
    assert.equal(edge('Dana', 'Erik')?.weight, 1);
    assert.equal(edge('Alice', 'Dana'), undefined, 'never named together');
    assert.equal(edge('Bob', 'Erik'), undefined);
    // Every edge is between nodes, source < target, never a self edge, its weight the facts naming both.
    const facts = (await get<{ facts: Fact[] }>('/v1/banks/ex/facts?limit=1000')).body.facts;
    const ids = new Set(nodes.map((n) => n.id));
    for (const e of edges) {
      assert.ok(ids.has(e.source) && ids.has(e.target) && e.source < e.target, JSON.stringify(e));
      assert.equal(e.weight, facts.filter((f) => f.entities.includes(e.source) && f.entities.includes(e.target)).length, JSON.stringify(e));
    }
    // The other way round: every pair of nodes a fact names together is an edge.
    const pairs = new Set(
      facts.flatMap((f) => {
        const named = f.entities.filter((x) => ids.has(x)).sort();
        return named.flatMap((a, i) => named.slice(i + 1).map((b) => `${a} ${b}`));
      }),
    );
    assert.deepEqual(edges.map((e) => `${e.source} ${e.target}`).sort(), [...pairs].sort());

    // limit keeps the most mentioned; their edges only.
    const two = await get<{ nodes: Entity[]; edges: Edge[] }>('/v1/banks/ex/entities/graph?limit=2');
    assert.deepEqual(
      two.body.nodes.map((n) => n.id),
      nodes.slice(0, 2).map((n) => n.id),
    );
    assert.deepEqual(
      two.body.edges,
      edges.filter((e) => two.body.nodes.some((n) => n.id === e.source) && two.body.nodes.some((n) => n.id === e.target)),
    );
    assert.deepEqual((await get('/v1/banks/ex-other/entities/graph')).body, { nodes: [], edges: [] });
  });

  test('entity graph: a deleted fact no longer joins its entities (superseded ones: the store conformance suite)', async () => {
    await s.call('POST', '/v1/banks', { id: 'ex-forget' });
    await s.call('POST', '/v1/banks/ex-forget/memories', {
      items: [{ content: 'Ivan and Judy sailed to Malta.', speaker: 'Carol', timestamp: '2024-03-01T10:00:00Z' }],
    });
    const before = await get<{ nodes: Entity[]; edges: Edge[] }>('/v1/banks/ex-forget/entities/graph');
    const ivan = before.body.nodes.find((n) => n.name === 'Ivan')?.id;
    const judy = before.body.nodes.find((n) => n.name === 'Judy')?.id;
    assert.ok(ivan && judy, JSON.stringify(before.body.nodes));
    assert.ok(before.body.edges.some((e) => [e.source, e.target].sort().join() === [ivan, judy].sort().join()));
    const facts = (await get<{ facts: Fact[] }>('/v1/banks/ex-forget/facts')).body.facts;
    for (const f of facts) assert.equal((await s.call('DELETE', `/v1/banks/ex-forget/facts/${f.id}`)).status, 200);
    const afterDelete = await get<{ nodes: Entity[]; edges: Edge[] }>('/v1/banks/ex-forget/entities/graph');
    assert.deepEqual(afterDelete.body.edges, []);
  });

  test("entity graph: unknown bank 404, bad limit 400; 'graph' is never taken for an entity id", async () => {
    assert.equal((await get('/v1/banks/no-such-bank/entities/graph')).status, 404);
    for (const q of ['limit=0', 'limit=501', 'limit=x', 'limit=1.5', 'depth=2']) {
      const r = await get<ErrorBody>(`/v1/banks/ex/entities/graph?${q}`);
      assert.equal(r.status, 400, q);
      assert.match(r.body.error.message, new RegExp(q.split('=')[0]), q);
    }
    assert.equal((await get('/v1/banks/ex/entities/graph?limit=500')).status, 200);
  });

  test('one entity by id: as listed; 404 for an unknown one, another bank, or an odd id', async () => {
    const [first] = (await get<{ entities: Entity[] }>('/v1/banks/ex/entities?limit=1')).body.entities;
    const r = await get<Entity>(`/v1/banks/ex/entities/${first.id}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, first);
    assert.equal((await get(`/v1/banks/ex-other/entities/${first.id}`)).status, 404, "not another bank's");
    for (const odd of ['ent_nope', 'GRAPH', 'graph%20', '%E2%9C%93', "x'%20OR%201=1", 'a'.repeat(2000), '%00']) {
      const miss = await get<ErrorBody>(`/v1/banks/ex/entities/${odd}`);
      assert.equal(miss.status, 404, odd);
      assert.equal(miss.body.error.code, 'not_found', odd);
    }
    assert.equal((await get(`/v1/banks/no-such-bank/entities/${first.id}`)).status, 404);
    assert.equal((await get(`/v1/banks/ex/entities/${first.id}?limit=-5`)).status, 400, 'no query parameters taken');
  });

  test('usage: bucket must be hour or day; without calls the series is empty; OpenAPI lists the new routes', async () => {
    const bad = await get<ErrorBody>('/v1/banks/ex/usage?bucket=week');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /bucket/);
    assert.equal((await get('/v1/banks/ex/usage?bucket=')).status, 400);
    assert.equal((await get('/v1/banks/no-such-bank/usage?bucket=day')).status, 404);
    const empty = await get<{ series?: unknown[] }>('/v1/banks/ex/usage?bucket=hour');
    assert.deepEqual([empty.status, empty.body.series], [200, []]);
    assert.equal('series' in (await get<object>('/v1/banks/ex/usage')).body, false, 'no bucket, no series');
    const doc = await get<{ paths: Record<string, unknown> }>('/openapi.json');
    for (const path of [
      '/v1/banks/{bank}/operations',
      '/v1/banks/{bank}/sessions',
      '/v1/banks/{bank}/entities/graph',
      '/v1/banks/{bank}/entities/{entity}',
    ])
      assert.ok(doc.body.paths[path], path);
  });
});

describe('usage per hour and day, through a scripted model', () => {
  let llm: FakeLlmServer;
  let s: TestServer;
  before(async () => {
    llm = await startFakeLlmServer();
    s = await startServer({
      env: llm.cairnEnv,
    });
    await s.call('POST', '/v1/banks', { id: 'spend' });
  });
  after(async () => {
    await s.close();
    await llm.close();
  });

  test('each retain call lands in the bucket of its hour and day, summing to the totals', async () => {
    const fact = (what: string, quote: string) => ({ what, kind: 'world', quote, entities: [{ name: 'Alice', type: 'person' }] });
    llm.script(
      reply.json({ facts: [fact('Alice moved to Berlin.', 'I moved to Berlin')] }, { prompt: 120, completion: 30 }),
      reply.json({ facts: [fact('Alice adopted a cat.', 'adopted a cat')] }, { prompt: 100, completion: 25 }),
    );
    const hourOf = (ms: number): string => `${new Date(ms).toISOString().slice(0, 13)}:00:00.000Z`;
    const startedAt = Date.now();
    const r = await s.call('POST', '/v1/banks/spend/memories', {
      items: [
        { content: 'I moved to Berlin this month.', speaker: 'Alice' },
        { content: 'Also, I adopted a cat.', speaker: 'Alice' },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const hours = new Set([hourOf(startedAt), hourOf(Date.now())]);

    type Point = { start: string; operation: string; provider: string; model: string; calls: number; inputTokens: number };
    type Report = { total: { calls: number; inputTokens: number }; series?: Point[] };
    const hourly = await s.call<Report>('GET', '/v1/banks/spend/usage?bucket=hour');
    assert.equal(hourly.status, 200, JSON.stringify(hourly.body));
    const series = hourly.body.series ?? [];
    assert.ok(series.length >= 1, JSON.stringify(hourly.body));
    for (const p of series) {
      assert.ok(hours.has(p.start), `${p.start} is the hour of the calls`);
      assert.deepEqual([p.operation, p.model], ['retain', 'scripted-model']);
    }
    assert.equal(
      series.reduce((n, p) => n + p.calls, 0),
      2,
    );
    assert.equal(
      series.reduce((n, p) => n + p.inputTokens, 0),
      220,
    );
    assert.deepEqual(
      series.map((p) => p.start),
      [...series.map((p) => p.start)].sort(),
      'ordered by start',
    );
    const daily = await s.call<Report>('GET', '/v1/banks/spend/usage?bucket=day');
    const days = new Set([...hours].map((h) => `${h.slice(0, 10)}T00:00:00.000Z`));
    assert.ok(
      daily.body.series?.every((p) => days.has(p.start)),
      JSON.stringify(daily.body.series),
    );
    assert.equal(
      daily.body.series?.reduce((n, p) => n + p.calls, 0),
      daily.body.total.calls,
    );
    const before = await s.call<Report>('GET', '/v1/banks/spend/usage?bucket=day&to=2000-01-01');
    assert.deepEqual([before.body.total.calls, before.body.series], [0, []], 'a range before the calls has no buckets');
  });
});
