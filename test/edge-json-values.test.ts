// Values a JSON body can spell but no schema could keep as sent, over real HTTP on the real embedded store: a key
// "__proto__" (zod's records dropped it silently) and a number too large for a double (1e400 parsed to Infinity and
// was stored as null in tool-call arguments) are a 400 naming the path on every route. Lone surrogates follow one
// rule: replaced by U+FFFD in free text (content and tool calls alike), refused in ids.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './support/server.ts';

type Err = { error: { code: string; message: string } };
type Message = { content: string; toolCalls: Array<{ id?: string; name: string; arguments?: unknown }> | null };

describe('JSON values no schema can keep', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    assert.equal((await s.call('POST', '/v1/banks', { id: 'a' })).status, 201);
  });
  after(async () => s.close());

  test('a "__proto__" key is a 400 naming its path, in metadata, tool-call arguments, bank config and settings', async () => {
    const cases: Array<[string, string, string, RegExp]> = [
      [
        'POST',
        '/v1/banks/a/memories',
        '{"items":[{"content":"Proto three.","metadata":{"__proto__":"kept?","other":"ok"}}]}',
        /items\.0\.metadata\.__proto__/,
      ],
      [
        'POST',
        '/v1/banks/a/memories',
        '{"items":[{"content":"Proto four.","metadata":{"__proto__":{"x":{"y":[1,2,3]}}}}]}',
        /items\.0\.metadata\.__proto__/,
      ],
      // an escaped spelling of the same key
      ['POST', '/v1/banks/a/memories', '{"items":[{"content":"Proto five.","metadata":{"\\u005f_proto__":"x"}}]}', /__proto__/],
      [
        'POST',
        '/v1/banks/a/threads/t1/messages',
        '{"messages":[{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"x","arguments":{"__proto__":{"n":1}}}]}]}',
        /messages\.0\.toolCalls\.0\.arguments\.__proto__/,
      ],
      ['POST', '/v1/banks', '{"id":"p1","config":{"__proto__":{"retainMode":"x"}}}', /config\.__proto__/],
      ['PUT', '/v1/banks/a/thread-settings', '{"__proto__":{"messageTokens":5}}', /__proto__/],
    ];
    for (const [method, path, body, where] of cases) {
      const r = await s.call<Err>(method, path, body);
      assert.equal(r.status, 400, `${method} ${path} ${body}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, where);
      assert.match(r.body.error.message, /"__proto__" is not allowed/);
    }
    const docs = await s.call<{ documents: unknown[] }>('GET', '/v1/banks/a/documents');
    assert.deepEqual(docs.body.documents, [], 'nothing was stored');
    assert.equal((await s.call('GET', '/v1/banks/p1')).status, 404);
    // other keys, and the word in values, are fine
    const ok = await s.call('POST', '/v1/banks/a/memories', { items: [{ content: 'Proto six.', metadata: { proto: '__proto__' } }] });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('a number too large for a double is a 400 naming its path, never stored as null', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        '/v1/banks/a/threads/t2/messages',
        '{"role":"assistant","content":"","toolCalls":[{"id":"c5","name":"x","arguments":{"n":1e400}}]}',
        /toolCalls\.0\.arguments\.n: Infinity is not a finite number/,
      ],
      [
        '/v1/banks/a/threads/t2/messages',
        '{"messages":[{"role":"assistant","content":"","toolCalls":[{"name":"x","arguments":[-1e400]}]}]}',
        /messages\.0\.toolCalls\.0\.arguments\.0: -Infinity is not a finite number/,
      ],
      ['/v1/banks/a/recall', '{"query":"x","limit":1e400}', /limit: Infinity is not a finite number/],
      // Without an exponent: 309 digits overflow too.
      [
        '/v1/banks/a/threads/t2/messages',
        `{"role":"assistant","content":"","toolCalls":[{"id":"c6","name":"x","arguments":{"n":2${'0'.repeat(308)}}}]}`,
        /toolCalls\.0\.arguments\.n: Infinity is not a finite number/,
      ],
    ];
    for (const [path, body, where] of cases) {
      const r = await s.call<Err>('POST', path, body);
      assert.equal(r.status, 400, `${path} ${body}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, where);
    }
    const listed = await s.call<{ messages: Message[] }>('GET', '/v1/banks/a/threads/t2/messages');
    assert.deepEqual(listed.status === 404 ? [] : listed.body.messages, [], 'nothing was stored');
  });

  test('lone surrogates: U+FFFD in content and in tool calls alike; a 400 in ids', async () => {
    const body =
      '{"role":"assistant","content":"half \\ud83d emoji","toolCalls":[{"id":"c\\ud800","name":"n\\udc00","arguments":{"k\\ud83d":["v\\ude00x",{"d":"\\ud800"}]}}]}';
    const r = await s.call('POST', '/v1/banks/a/threads/t3/messages', body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { body: listed } = await s.call<{ messages: Message[] }>('GET', '/v1/banks/a/threads/t3/messages');
    const [m] = listed.messages;
    assert.equal(m?.content, 'half \uFFFD emoji');
    assert.deepEqual(m?.toolCalls, [{ id: 'c\uFFFD', name: 'n\uFFFD', arguments: { 'k\uFFFD': ['v\uFFFDx', { d: '\uFFFD' }] } }]);
    const id = await s.call<Err>('POST', '/v1/banks/a/memories', '{"items":[{"content":"Some text.","documentId":"d\\ud800"}]}');
    assert.equal(id.status, 400);
    assert.match(id.body.error.message, /documentId holds a lone surrogate/);
  });

  test('a bank config whose retainMode is an object with a "toString" key is a 400, not a 500', async () => {
    const r = await s.call<Err>('POST', '/v1/banks', { id: 'ts', config: { retainMode: { toString: -3e150, ref: null } } });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.error.message, /retainMode '\{"toString":-3e\+150,"ref":null\}' is not one of/);
  });
});
