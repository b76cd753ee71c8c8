// One strictness on every route, over real HTTP on the real embedded store: an unknown query parameter is a 400
// naming it (on routes that take none as on those that take some; a body field sent as a query parameter is told
// so), consolidate refuses a body it would ignore, recall refuses an empty tag as retain does, and the dead-letter
// retry body is declared in the OpenAPI document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './support/server.ts';

type Err = { error: { code: string; message: string } };

describe('edge strictness', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    for (const id of ['a', 'b']) assert.equal((await s.call('POST', '/v1/banks', { id })).status, 201);
  });
  after(async () => s.close());

  test('unknown query parameters are a 400 naming them, on every route', async () => {
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['GET', '/v1/banks?limit=-1&bogus=1', undefined, /unknown query parameters limit, bogus: it takes none/],
      ['GET', '/v1/banks/b/consolidation/dead-letters?limit=-1', undefined, /unknown query parameter limit/],
      ['GET', '/v1/banks/a?x=1', undefined, /unknown query parameter x/],
      ['POST', '/v1/banks/a/recall?limit=3', { query: 'x' }, /unknown query parameter limit: .*limit is a body field/],
      ['GET', '/v1/banks/a/facts?limt=3', undefined, /unknown query parameter limt: it takes limit, offset/],
      ['POST', '/v1/banks/a/consolidate?wait=true&now=1', undefined, /unknown query parameter now: it takes wait/],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await s.call<Err>(method, path, body);
      assert.equal(r.status, 400, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, message);
    }
    assert.equal((await s.call('GET', '/v1/banks/a/facts?limit=3&offset=0')).status, 200, 'declared parameters pass');
    assert.equal((await s.call('POST', '/v1/banks/a/consolidate?wait=true')).status, 200);
  });

  test('retain with ?async=true is refused, pointing at the body field, and stores nothing', async () => {
    const r = await s.call<Err>('POST', '/v1/banks/a/memories?async=true', { items: [{ content: 'Dana bakes bread on Sundays.' }] });
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /async is a body field: send it in the JSON body/);
    const docs = await s.call<{ documents: unknown[] }>('GET', '/v1/banks/a/documents');
    assert.deepEqual(docs.body.documents, []);
    const queued = await s.call<{ status: string }>('POST', '/v1/banks/a/memories', {
      items: [{ content: 'Dana bakes bread on Sundays.' }],
      async: true,
    });
    assert.ok([200, 202].includes(queued.status), JSON.stringify(queued.body));
  });

  test('consolidate refuses body fields it would ignore; no body or {} runs', async () => {
    const r = await s.call<Err>('POST', '/v1/banks/a/consolidate', { x: 1 });
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /consolidate takes no request body \(got x\).*query parameter wait/);
    for (const body of ['[1]', '"x"']) assert.equal((await s.call('POST', '/v1/banks/a/consolidate', body)).status, 400, body);
    for (const body of [undefined, {}]) {
      const r = await s.call('POST', '/v1/banks/a/consolidate', body);
      assert.ok([200, 202].includes(r.status), `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }
  });

  test('recall refuses an empty tag as retain does', async () => {
    const recall = await s.call<Err>('POST', '/v1/banks/a/recall', { query: 'bread', tags: [''] });
    assert.equal(recall.status, 400);
    assert.match(recall.body.error.message, /tags\.0/);
    const retain = await s.call<Err>('POST', '/v1/banks/a/memories', { items: [{ content: 'Tagged.', tags: [''] }] });
    assert.equal(retain.status, 400);
    assert.match(retain.body.error.message, /tags\.0/);
  });

  test('dead-letter retry: its body is declared in /openapi.json; no body, {} and factIds work; unknown keys are a 400', async () => {
    type Doc = {
      paths: Record<string, Record<string, { requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> } }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }> };
    };
    const { body: doc } = await s.call<Doc>('GET', '/openapi.json');
    const retry = doc.paths['/v1/banks/{bank}/consolidation/dead-letters/retry']?.post;
    assert.ok(retry?.requestBody, 'a request body is declared');
    assert.notEqual(retry.requestBody.required, true);
    assert.deepEqual(retry.requestBody.content['application/json']?.schema, { $ref: '#/components/schemas/DeadLetterRetry' });
    assert.ok(doc.components.schemas.DeadLetterRetry?.properties?.factIds);
    const path = '/v1/banks/b/consolidation/dead-letters/retry';
    for (const body of [undefined, {}, { factIds: ['f1'] }]) {
      const r = await s.call<{ retried: number }>('POST', path, body);
      assert.equal(r.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }
    const bad = await s.call<Err>('POST', path, { factIDs: ['f1'] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /factIDs/);
  });
});
