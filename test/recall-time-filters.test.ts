// Recall and the facts list filtered on when facts happened (occurredFrom/occurredTo) and when they held (validAt),
// over real HTTP on the real embedded store: dated items are retained, and only the facts whose times fit come back.
// Bad values and a backwards range are 400s naming the field, and /openapi.json describes the filters.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './support/server.ts';

type Err = { error: { code: string; message: string } };
type Retain = { result: { factIds: string[] } | null };
type Fact = { id: string; occurredStart: string | null; validFrom: string | null };

const QUERY = 'Alice cat Miso violin sardines';

describe('recall time filters', () => {
  let s: TestServer;
  /** The facts of each retained item. */
  const of: Record<'cat' | 'violin' | 'sardines', string[]> = { cat: [], violin: [], sardines: [] };

  before(async () => {
    s = await startServer();
    assert.equal((await s.call('POST', '/v1/banks', { id: 'tf' })).status, 201);
    const items = {
      cat: { content: 'In March 2023 Alice adopted a cat named Miso.', timestamp: '2024-01-10T10:00:00Z' },
      violin: { content: 'In May 2021 Alice started learning the violin.', timestamp: '2024-01-10T10:05:00Z' },
      sardines: { content: 'Alice says her cat Miso loves sardines.', timestamp: '2024-02-01T09:00:00Z' },
    };
    for (const [key, item] of Object.entries(items) as Array<[keyof typeof of, { content: string; timestamp: string }]>) {
      const r = await s.call<Retain>('POST', '/v1/banks/tf/memories', { items: [item] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      of[key] = r.body.result?.factIds ?? [];
      assert.ok(of[key].length > 0, `${key} gave facts`);
    }
  });
  after(async () => s.close());

  const recall = async (extra: Record<string, unknown>): Promise<string[]> => {
    const r = await s.call<{ results: Array<{ id: string }> } & Err>('POST', '/v1/banks/tf/recall', { query: QUERY, limit: 50, ...extra });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.results.map((x) => x.id).sort();
  };
  const ids = (...keys: Array<keyof typeof of>): string[] => keys.flatMap((k) => of[k]).sort();

  test('the retained facts carry the dates their text gives (or their timestamp when it gives none)', async () => {
    for (const [key, month] of [
      ['cat', '2023-03'],
      ['violin', '2021-05'],
    ] as const)
      for (const id of of[key]) {
        const f = (await s.call<Fact>('GET', `/v1/banks/tf/facts/${id}`)).body;
        assert.ok(f.occurredStart?.startsWith(month), `${key}: ${f.occurredStart}`);
        assert.equal(f.validFrom, f.occurredStart);
      }
    for (const id of of.sardines) {
      const f = (await s.call<Fact>('GET', `/v1/banks/tf/facts/${id}`)).body;
      assert.equal(f.occurredStart, null);
      assert.equal(f.validFrom, '2024-02-01T09:00:00.000Z');
    }
  });

  test('without filters every fact comes back', async () => {
    assert.deepEqual(await recall({}), ids('cat', 'violin', 'sardines'));
  });

  test('occurredFrom/occurredTo: facts that happened in the range; undated facts are left out', async () => {
    assert.deepEqual(await recall({ occurredFrom: '2023-01-01', occurredTo: '2023-12-31T23:59:59Z' }), ids('cat'));
    assert.deepEqual(await recall({ occurredTo: '2022-01-01' }), ids('violin'));
    assert.deepEqual(await recall({ occurredFrom: '2023-03-31T12:00:00+02:00' }), ids('cat'), 'a month long span reaches the bound');
    assert.deepEqual(await recall({ occurredFrom: '2019-01-01', occurredTo: '2019-12-31' }), []);
  });

  test('validAt: facts that held at the instant', async () => {
    assert.deepEqual(await recall({ validAt: '2022-01-01' }), ids('violin'));
    assert.deepEqual(await recall({ validAt: '2023-06-01T00:00:00Z' }), ids('cat', 'violin'));
    assert.deepEqual(await recall({ validAt: '2024-03-01' }), ids('cat', 'violin', 'sardines'));
    assert.deepEqual(await recall({ validAt: '2020-01-01' }), []);
  });

  test('the facts list takes the same filters', async () => {
    const list = async (q: string): Promise<string[]> => {
      const r = await s.call<{ facts: Array<{ id: string }>; total: number }>('GET', `/v1/banks/tf/facts?${q}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.total, r.body.facts.length);
      return r.body.facts.map((f) => f.id).sort();
    };
    assert.deepEqual(await list('occurredFrom=2023-01-01&occurredTo=2023-12-31'), ids('cat'));
    assert.deepEqual(await list('validAt=2022-01-01'), ids('violin'));
    assert.deepEqual(await list('limit=50'), ids('cat', 'violin', 'sardines'));
  });

  test('bad values and a backwards range are 400s naming the field', async () => {
    for (const field of ['occurredFrom', 'occurredTo', 'validAt'])
      for (const bad of ['2024', '2024-02-30T00:00:00Z', 'yesterday', 7]) {
        const r = await s.call<Err>('POST', '/v1/banks/tf/recall', { query: QUERY, [field]: bad });
        assert.equal(r.status, 400, `${field}=${bad}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.error.message, new RegExp(field));
        const q = await s.call<Err>('GET', `/v1/banks/tf/facts?${field}=${encodeURIComponent(String(bad))}`);
        assert.equal(q.status, 400, `list ${field}=${bad}`);
        assert.match(q.body.error.message, new RegExp(field));
      }
    const backwards = await s.call<Err>('POST', '/v1/banks/tf/recall', {
      query: QUERY,
      occurredFrom: '2024-01-02',
      occurredTo: '2024-01-01',
    });
    assert.equal(backwards.status, 400, JSON.stringify(backwards.body));
    assert.match(backwards.body.error.message, /occurredFrom.*occurredTo/);
    const listBackwards = await s.call<Err>('GET', '/v1/banks/tf/facts?occurredFrom=2024-01-02&occurredTo=2024-01-01');
    assert.equal(listBackwards.status, 400);
    assert.match(listBackwards.body.error.message, /occurredFrom.*occurredTo/);
    const sameInstant = await s.call('POST', '/v1/banks/tf/recall', {
      query: QUERY,
      occurredFrom: '2024-01-01T02:00:00+02:00',
      occurredTo: '2024-01-01',
    });
    assert.equal(sameInstant.status, 200, 'compared as instants, not as text');
  });

  test('/openapi.json describes the filters', async () => {
    type Doc = {
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
      paths: Record<
        string,
        Record<string, { parameters?: Array<{ name: string; description?: string; schema?: { description?: string } }> }>
      >;
    };
    const doc = (await s.call<Doc>('GET', '/openapi.json')).body;
    const props = doc.components.schemas.RecallRequest.properties;
    const params = doc.paths['/v1/banks/{bank}/facts'].get.parameters ?? [];
    for (const field of ['occurredFrom', 'occurredTo', 'validAt']) {
      assert.match(props[field]?.description ?? '', /\w+ \w+/, `recall ${field}`);
      const p = params.find((x) => x.name === field);
      assert.match(p?.description ?? p?.schema?.description ?? '', /\w+ \w+/, `facts list ${field}`);
    }
  });
});
