// HTTP manners over real HTTP on the real embedded store: a wrong method on a known route is a 405 with an Allow
// header, a body that is not JSON (or compressed) is a 415 saying what to send, the bearer scheme is
// case-insensitive and only the exact key passes, the OpenAPI document declares and applies its bearer scheme, and
// thread message seq counts per thread.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startServer, type TestServer } from './support/server.ts';

type Err = { error: { code: string; message: string } };
const KEY = 'sekret-key-0123456789';

describe('HTTP manners', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ env: { CAIRN_API_KEY: KEY } });
  });
  after(async () => s.close());
  const auth = { authorization: `Bearer ${KEY}` };

  test('a wrong method on a known route is a 405 naming the allowed methods; unknown paths stay 404', async () => {
    await s.call('POST', '/v1/banks', { id: 'm' }, auth);
    const cases: Array<[string, string, string[]]> = [
      ['PUT', '/v1/banks/m/recall', ['POST']],
      ['DELETE', '/v1/banks', ['GET', 'HEAD', 'POST']],
      ['POST', '/v1/banks/m', ['DELETE', 'GET', 'HEAD', 'PATCH']],
      ['GET', '/v1/banks/m/memories', ['POST']],
      ['PATCH', '/v1/banks/m/threads/t/messages', ['GET', 'HEAD', 'POST']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await fetch(s.url + path, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      assert.equal(res.status, 405, `${method} ${path}`);
      const allow = (res.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .sort();
      assert.deepEqual(allow, [...allowed, 'OPTIONS'].sort(), `${method} ${path}`);
      const body = (await res.json()) as Err;
      assert.equal(body.error.code, 'method_not_allowed');
      assert.match(body.error.message, new RegExp(allowed.join(', ')));
    }
    const options = await fetch(`${s.url}/v1/banks/m`, { method: 'OPTIONS', headers: auth });
    assert.equal(options.status, 204);
    assert.match(options.headers.get('allow') ?? '', /PATCH/);
    assert.equal((await s.call('GET', '/v1/nothing/here', undefined, auth)).status, 404);
    assert.equal((await s.call('PUT', '/v1/banks/m/nothing', undefined, auth)).status, 404);
  });

  test('a body that is not JSON is a 415 telling the client to send JSON', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}] as Array<
      Record<string, string>
    >) {
      const res = await fetch(`${s.url}/v1/banks/m/recall`, { method: 'POST', headers: { ...auth, ...headers }, body: '{"query":"x"}' });
      assert.equal(res.status, 415, JSON.stringify(headers));
      const body = (await res.json()) as Err;
      assert.equal(body.error.code, 'unsupported_media_type');
      assert.match(body.error.message, /content-type: application\/json/);
    }
  });

  test('a compressed body is a 415 naming its encoding, not a malformed JSON', async () => {
    const res = await fetch(`${s.url}/v1/banks/m/recall`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"query":"x"}'),
    });
    assert.equal(res.status, 415);
    const body = (await res.json()) as Err;
    assert.equal(body.error.code, 'unsupported_media_type');
    assert.match(body.error.message, /content-encoding 'gzip' is not supported: send the body uncompressed/);
    const plain = await fetch(`${s.url}/v1/banks/m/recall`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'identity' },
      body: '{"query":"x"}',
    });
    assert.notEqual(plain.status, 415);
  });

  test('the bearer scheme is case-insensitive; only the exact key passes', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR'])
      assert.equal((await s.call('GET', '/v1/banks', undefined, { authorization: `${scheme} ${KEY}` })).status, 200, scheme);
    for (const header of [`Bearer ${KEY}x`, `Bearer ${KEY.slice(0, -1)}`, 'Bearer ', `Basic ${KEY}`, KEY, `Bearer  ${KEY}x`, '']) {
      const r = await s.call<Err>('GET', '/v1/banks', undefined, { authorization: header });
      assert.equal(r.status, 401, header);
      assert.equal(r.body.error.code, 'unauthorized');
    }
    assert.equal((await s.call('GET', '/health')).status, 200);
  });

  test('the OpenAPI document declares the bearer security scheme and applies it', async () => {
    const doc = await s.call<{ components: { securitySchemes?: Record<string, { type: string; scheme: string }> }; security?: unknown }>(
      'GET',
      '/openapi.json',
      undefined,
      auth,
    );
    assert.equal(doc.status, 200);
    assert.deepEqual(
      { type: doc.body.components.securitySchemes?.bearer?.type, scheme: doc.body.components.securitySchemes?.bearer?.scheme },
      { type: 'http', scheme: 'bearer' },
    );
    assert.deepEqual(doc.body.security, [{ bearer: [] }]);
  });

  test('thread message seq counts per thread, from 1', async () => {
    const append = async (thread: string, n: number): Promise<number[]> => {
      const r = await s.call<{ messages: Array<{ seq: number }> }>(
        'POST',
        `/v1/banks/m/threads/${thread}/messages`,
        Array.from({ length: n }, (_, i) => ({ role: 'user', content: `message ${i} of ${thread}` })),
        auth,
      );
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.messages.map((m) => m.seq);
    };
    assert.deepEqual(await append('one', 2), [1, 2]);
    assert.deepEqual(await append('two', 3), [1, 2, 3]);
    assert.deepEqual(await append('one', 1), [3]);
    const listed = await s.call<{ messages: Array<{ seq: number }> }>('GET', '/v1/banks/m/threads/two/messages', undefined, auth);
    assert.deepEqual(
      listed.body.messages.map((m) => m.seq),
      [1, 2, 3],
    );
  });
});
