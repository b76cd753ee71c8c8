// The Qdrant adapter without a Qdrant server: point ids, collection names, payloads, search filters and the
// collection specs as pure functions; then what the adapter sends over HTTP (paths, bodies, batching), checked
// against a recording HTTP server on 127.0.0.1 that answers the way Qdrant's REST API does.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { bankFilter, searchFilter } from './filter.ts';
import { collectionName, payloadOf, pointId, uuidV5 } from './points.ts';
import { creationBody, parseSpec, payloadIndexes, readSpecs } from './spec.ts';
import { QdrantVectors } from './vectors.ts';

describe('Qdrant points', () => {
  test('UUIDv5 matches the RFC 4122 reference (DNS namespace, www.example.com)', () => {
    assert.equal(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  test('a fact always maps to the same point id, and different facts to different ones', () => {
    assert.equal(pointId('fct_0193b2c4d5e6_9f8a7b6c5d4e'), '9722fa74-a246-597f-b9a0-9fc7565e0ea8');
    assert.equal(pointId('fct_a'), pointId('fct_a'));
    assert.notEqual(pointId('fct_a'), pointId('fct_b'));
    assert.match(pointId('x'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('collection names: one per embedder, safe characters, ids that slug alike kept apart', () => {
    const a = collectionName('cairn', 'glove:wink-sg-100d:v1');
    assert.match(a, /^cairn_glove-wink-sg-100d-v1_[0-9a-f]{10}$/);
    assert.equal(collectionName('cairn', 'glove:wink-sg-100d:v1'), a);
    assert.notEqual(collectionName('cairn', 'Xenova/bge-small'), collectionName('cairn', 'xenova-bge-small'));
    assert.match(
      collectionName('cairn', 'transformers:Xenova/bge-small-en-v1.5'),
      /^cairn_transformers-xenova-bge-small-en-v1-5_[0-9a-f]{10}$/,
    );
  });

  test('payload: bank, fact, kind, tags and record time', () => {
    assert.deepEqual(payloadOf({ id: 'f1', bankId: 'b1', kind: 'experience', tags: ['x'], createdAt: '2024-01-01T00:00:00.000Z' }), {
      bank_id: 'b1',
      fact_id: 'f1',
      kind: 'experience',
      tags: ['x'],
      created_at: '2024-01-01T00:00:00.000Z',
    });
  });
});

describe('Qdrant search filter', () => {
  test('always the bank', () => {
    assert.deepEqual(searchFilter('b1'), { must: [{ key: 'bank_id', match: { value: 'b1' } }] });
    assert.deepEqual(bankFilter('b1'), searchFilter('b1', {}));
  });

  test('kinds as any-of, each tag a must, record time as a datetime range', () => {
    assert.deepEqual(
      searchFilter('b1', {
        kinds: ['world', 'observation'],
        tags: ['a', 'b'],
        recordedBefore: '2024-02-01T00:00:00.000Z',
        includeSuperseded: true,
      }),
      {
        must: [
          { key: 'bank_id', match: { value: 'b1' } },
          { key: 'kind', match: { any: ['world', 'observation'] } },
          { key: 'tags', match: { value: 'a' } },
          { key: 'tags', match: { value: 'b' } },
          { key: 'created_at', range: { lte: '2024-02-01T00:00:00.000Z' } },
        ],
      },
    );
  });
});

describe('Qdrant search filter: times Neo4j confirms', () => {
  test('occurred and valid time stay out of the payload filter (they change after the point is written)', () => {
    assert.deepEqual(
      searchFilter('b1', {
        occurredFrom: '2023-01-01T00:00:00.000Z',
        occurredTo: '2023-12-31T00:00:00.000Z',
        validAt: '2023-06-01T00:00:00.000Z',
      }),
      searchFilter('b1'),
    );
  });
});

describe('Qdrant collection specs', () => {
  test('the shipped spec: cosine, tenant-indexed bank, keyword and datetime indexes, per-tenant HNSW', () => {
    const specs = readSpecs();
    assert.ok(specs.length >= 1);
    assert.match(specs[0].name, /^001_[a-z_]+\.json$/);
    const body = creationBody(specs, 384);
    assert.deepEqual(body.vectors, { size: 384, distance: 'Cosine' });
    assert.equal(body.hnsw_config?.payload_m, 16);
    assert.equal(body.hnsw_config?.m, 0);
    const indexes = Object.fromEntries(payloadIndexes(specs).map((i) => [i.field_name, i.field_schema]));
    assert.deepEqual(indexes.bank_id, { type: 'keyword', is_tenant: true });
    assert.equal(indexes.kind, 'keyword');
    assert.equal(indexes.tags, 'keyword');
    assert.equal(indexes.created_at, 'datetime');
  });

  test('later specs override earlier settings and index schemas', () => {
    const a = parseSpec(
      '001.json',
      JSON.stringify({
        create: { hnsw_config: { m: 0, ef_construct: 100 } },
        payload_indexes: [{ field_name: 'kind', field_schema: 'keyword' }],
      }),
    );
    const b = parseSpec(
      '002.json',
      JSON.stringify({
        create: { hnsw_config: { ef_construct: 200 } },
        payload_indexes: [{ field_name: 'kind', field_schema: 'integer' }],
      }),
    );
    assert.deepEqual(creationBody([a, b], 8).hnsw_config, { m: 0, ef_construct: 200 });
    assert.deepEqual(payloadIndexes([a, b]), [{ field_name: 'kind', field_schema: 'integer' }]);
  });

  test('malformed specs are refused', () => {
    assert.throws(() => parseSpec('x.json', '[]'), /object/);
    assert.throws(() => parseSpec('x.json', '{"collection": {}}'), /unknown key/);
    assert.throws(() => parseSpec('x.json', '{"payload_indexes": [{"field": "a"}]}'), /payload_indexes/);
  });
});

interface Recorded {
  method: string;
  path: string;
  body: unknown;
}

/** Answers like Qdrant's REST API for the calls the adapter makes; remembers every request. */
function qdrantLike(state: {
  collections: Set<string>;
  points: Array<{ id: string; payload: Record<string, unknown>; vector: number[] }>;
}) {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body: unknown = raw ? JSON.parse(raw) : null;
      requests.push({ method: req.method ?? '', path: url.pathname, body });
      const reply = (result: unknown): void => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ result, status: 'ok', time: 0 }));
      };
      const parts = url.pathname.split('/').filter(Boolean);
      const name = parts[1];
      const b = (body ?? {}) as Record<string, unknown>;
      if (req.method === 'GET' && url.pathname === '/collections')
        return reply({ collections: [...state.collections].map((n) => ({ name: n })) });
      if (req.method === 'GET' && parts[2] === 'exists') return reply({ exists: state.collections.has(name) });
      if (req.method === 'PUT' && parts.length === 2) {
        state.collections.add(name);
        return reply(true);
      }
      if (req.method === 'PUT' && parts[2] === 'index') return reply({ operation_id: 1, status: 'completed' });
      if (req.method === 'PUT' && parts[2] === 'points') {
        for (const p of b.points as Array<{ id: string; payload: Record<string, unknown>; vector: number[] }>) {
          state.points = state.points.filter((x) => x.id !== p.id);
          state.points.push(p);
        }
        return reply({ operation_id: 2, status: 'completed' });
      }
      if (req.method === 'POST' && parts[2] === 'points' && parts[3] === 'delete') {
        const ids = new Set((b.points as string[] | undefined) ?? []);
        state.points = state.points.filter((x) => !ids.has(x.id));
        return reply({ operation_id: 3, status: 'completed' });
      }
      if (req.method === 'POST' && parts[2] === 'points' && parts[3] === 'query')
        return reply({
          points: state.points
            .slice(0, Number(b.limit))
            .map((p, i) => ({ id: p.id, version: 1, score: 1 - i / 10, payload: { fact_id: p.payload.fact_id } })),
        });
      if (req.method === 'POST' && parts[2] === 'points' && parts.length === 3) {
        const ids = new Set(b.ids as string[]);
        return reply(
          state.points
            .filter((p) => ids.has(p.id))
            .map((p) => ({ id: p.id, payload: { fact_id: p.payload.fact_id }, vector: b.with_vector ? p.vector : undefined })),
        );
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: { error: `not handled: ${req.method} ${url.pathname}` } }));
    });
  });
  return { server, requests };
}

describe('Qdrant adapter over HTTP', () => {
  const state = { collections: new Set<string>(), points: [] as Array<{ id: string; payload: Record<string, unknown>; vector: number[] }> };
  const { server, requests } = qdrantLike(state);
  let vectors: QdrantVectors;
  const source = (id: string) => ({ id, bankId: 'b1', kind: 'world' as const, tags: ['t'], createdAt: '2024-01-01T00:00:00.000Z' });

  before(async () => {
    await new Promise<void>((resolve) => (server as Server).listen(0, '127.0.0.1', resolve));
    vectors = new QdrantVectors({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      collectionPrefix: 'cairn-test',
      batchSize: 2,
    });
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('the first write of an embedder creates its collection with the spec, then upserts in batches', async () => {
    await vectors.upsert(
      'glove:x',
      ['f1', 'f2', 'f3'].map((id, i) => ({ source: source(id), vector: new Float32Array([i, 1]) })),
    );
    const name = collectionName('cairn-test', 'glove:x');
    const create = requests.find((r) => r.method === 'PUT' && r.path === `/collections/${name}`);
    assert.ok(create, 'collection created');
    assert.deepEqual((create.body as { vectors: unknown }).vectors, { size: 2, distance: 'Cosine' });
    const indexes = requests
      .filter((r) => r.path === `/collections/${name}/index`)
      .map((r) => (r.body as { field_name: string }).field_name);
    assert.deepEqual(indexes.sort(), ['bank_id', 'created_at', 'kind', 'tags']);
    const upserts = requests.filter((r) => r.method === 'PUT' && r.path === `/collections/${name}/points`);
    assert.deepEqual(
      upserts.map((u) => (u.body as { points: unknown[] }).points.length),
      [2, 1],
      'batches of 2',
    );
    const first = (upserts[0].body as { points: Array<{ id: string; payload: unknown; vector: number[] }> }).points[0];
    assert.equal(first.id, pointId('f1'));
    assert.deepEqual(first.vector, [0, 1]);
    assert.deepEqual(first.payload, payloadOf(source('f1')));
  });

  test('search sends the filter, maps hits back to facts', async () => {
    const hits = await vectors.search('glove:x', 'b1', new Float32Array([1, 0]), 2, { kinds: ['world'] });
    assert.deepEqual(
      hits.map((h) => h.factId),
      ['f1', 'f2'],
    );
    const query = requests.filter((r) => r.path.endsWith('/points/query')).at(-1)!;
    assert.deepEqual((query.body as { filter: unknown }).filter, searchFilter('b1', { kinds: ['world'] }));
    assert.deepEqual((query.body as { query: unknown }).query, [1, 0]);
    assert.deepEqual(await vectors.search('never-written', 'b1', new Float32Array([1, 0]), 2), [], 'no collection, no hits');
  });

  test('vectors come back by fact id; deletes address the derived point ids', async () => {
    const got = await vectors.retrieve('glove:x', ['f2', 'missing']);
    assert.deepEqual([...got.keys()], ['f2']);
    assert.deepEqual(Array.from(got.get('f2')!), [1, 1]);
    await vectors.deleteFacts('glove:x', ['f1', 'f2']);
    const del = requests.filter((r) => r.path.endsWith('/points/delete')).at(-1)!;
    assert.deepEqual((del.body as { points: string[] }).points, [pointId('f1'), pointId('f2')]);
    assert.deepEqual([...(await vectors.existing('glove:x', ['f1', 'f2', 'f3']))], ['f3']);
    await vectors.deleteBank('b1');
    const byBank = requests.filter((r) => r.path.endsWith('/points/delete')).at(-1)!;
    assert.deepEqual((byBank.body as { filter: unknown }).filter, bankFilter('b1'));
  });

  test('migrate applies the specs to existing Cairn collections only', async () => {
    state.collections.add('someone-elses');
    const before = requests.length;
    const names = await vectors.migrate();
    assert.deepEqual(names, [collectionName('cairn-test', 'glove:x')]);
    assert.ok(requests.slice(before).every((r) => !r.path.includes('someone-elses')));
  });
});
