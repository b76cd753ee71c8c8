// Validation at the HTTP edge, over real HTTP on the real embedded store: every time field of every route takes
// ISO 8601 only and is stored in one canonical form (or refused with a 400 naming the field), recall tag filters
// are capped, blank content and queries are refused like empty ones, nested request objects are strict, a usage
// range must not run backwards, and a whole-number query parameter given blank, twice or out of range is a 400
// that says which.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './support/server.ts';

type Err = { error: { code: string; message: string } };
type Retain = { result: { factIds: string[] } | null };
type Fact = { id: string; mentionedAt: string; text: string };

/** Not ISO 8601 dates (or impossible ones), each once stored verbatim and compared as text. */
const BAD_TIMES = [
  '0',
  '-1',
  '2024',
  '2024-02-30T00:00:00Z',
  'Sun, 02 Jun 2024 10:00:00 GMT',
  '2024-13-01T00:00:00Z',
  '2024-06-01T24:00:00Z',
  'yesterday',
  '',
];

describe('edge validation', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
    for (const id of ['v', 'empty']) assert.equal((await s.call('POST', '/v1/banks', { id })).status, 201);
  });
  after(async () => s.close());

  test('items[].timestamp: non-ISO or impossible dates are a 400 naming the field, and nothing is stored', async () => {
    for (const timestamp of BAD_TIMES) {
      const r = await s.call<Err>('POST', '/v1/banks/v/memories', {
        items: [{ content: `Alice flew to Oslo (${timestamp}).`, timestamp }],
      });
      assert.equal(r.status, 400, `timestamp ${JSON.stringify(timestamp)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, /items\.0\.timestamp/);
    }
    const facts = await s.call<{ facts: Fact[] }>('GET', '/v1/banks/v/facts');
    assert.deepEqual(facts.body.facts, []);
  });

  test('items[].timestamp: ISO 8601 forms are stored in one canonical UTC form', async () => {
    const forms: Array<[string, string]> = [
      ['2024-06-01T12:00:00Z', '2024-06-01T12:00:00.000Z'],
      ['2024-06-01T14:00:00+02:00', '2024-06-01T12:00:00.000Z'],
      ['2024-06-01', '2024-06-01T00:00:00.000Z'],
      ['2024-02-29T23:59:59.123456Z', '2024-02-29T23:59:59.123Z'],
    ];
    for (const [i, [timestamp, canonical]] of forms.entries()) {
      const r = await s.call<Retain>('POST', '/v1/banks/v/memories', {
        items: [{ content: `Bob visited museum number ${i + 1} in Rome.`, timestamp }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const [id] = r.body.result?.factIds ?? [];
      assert.ok(id);
      const fact = await s.call<Fact>('GET', `/v1/banks/v/facts/${id}`);
      assert.equal(fact.body.mentionedAt, canonical, timestamp);
    }
  });

  test('recall queryTime and asOf, reflect queryTime, thread message timestamps and usage from/to take ISO 8601 only', async () => {
    const cases: Array<[string, string, (t: string) => unknown, RegExp]> = [
      ['POST', '/v1/banks/v/recall', (t) => ({ query: 'Rome', queryTime: t }), /queryTime/],
      ['POST', '/v1/banks/v/recall', (t) => ({ query: 'Rome', asOf: t }), /asOf/],
      ['POST', '/v1/banks/v/reflect', (t) => ({ query: 'Rome?', queryTime: t }), /queryTime/],
      ['POST', '/v1/banks/v/threads/t1/messages', (t) => ({ role: 'user', content: 'hi', timestamp: t }), /timestamp/],
    ];
    for (const [method, path, body, field] of cases)
      for (const t of ['2024', '2024-02-30T00:00:00Z', 'Sun, 02 Jun 2024 10:00:00 GMT']) {
        const r = await s.call<Err>(method, path, body(t));
        assert.equal(r.status, 400, `${path} ${t}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.error.message, field);
      }
    for (const q of ['from=2024', 'to=-1', 'from=2024-02-30T00:00:00Z']) {
      const r = await s.call<Err>('GET', `/v1/banks/v/usage?${q}`);
      assert.equal(r.status, 400, q);
      assert.match(r.body.error.message, new RegExp(q.split('=')[0]));
    }
    const msg = await s.call<{ messages: Array<{ timestamp: string }> }>('POST', '/v1/banks/v/threads/t1/messages', {
      role: 'user',
      content: 'hi',
      timestamp: '2024-06-01T14:00:00+02:00',
    });
    assert.equal(msg.status, 200);
    assert.equal(msg.body.messages[0].timestamp, '2024-06-01T12:00:00.000Z');
    const ok = await s.call<{ from: string; to: string }>('GET', '/v1/banks/v/usage?from=2024-01-01&to=2024-06-01T00:00:00%2B02:00');
    assert.equal(ok.status, 200);
    assert.deepEqual([ok.body.from, ok.body.to], ['2024-01-01T00:00:00.000Z', '2024-05-31T22:00:00.000Z']);
  });

  test('usage: a range whose from is after its to is a 400', async () => {
    const r = await s.call<Err>('GET', '/v1/banks/v/usage?from=2025-01-01&to=2024-01-01');
    assert.equal(r.status, 400);
    assert.match(r.body.error.message, /from.*to/);
  });

  test('recall tags: more than the cap is a 400, not an SQLite expression-depth 500', async () => {
    const r = await s.call<Err>('POST', '/v1/banks/v/recall', { query: 'Rome', tags: Array.from({ length: 999 }, (_, i) => `t${i}`) });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.error.message, /tags/);
    const fine = await s.call('POST', '/v1/banks/v/recall', { query: 'Rome', tags: Array.from({ length: 50 }, (_, i) => `t${i}`) });
    assert.equal(fine.status, 200);
  });

  test('blank content and blank queries are refused like empty ones', async () => {
    for (const content of ['', '   ', '\n\t ']) {
      const r = await s.call<Err>('POST', '/v1/banks/empty/memories', { items: [{ content }] });
      assert.equal(r.status, 400, JSON.stringify(content));
      assert.match(r.body.error.message, /items\.0\.content/);
    }
    assert.deepEqual((await s.call<{ documents: unknown[] }>('GET', '/v1/banks/empty/documents')).body.documents, []);
    for (const query of ['', '   ', '\u00a0\n']) {
      const r = await s.call<Err>('POST', '/v1/banks/v/recall', { query });
      assert.equal(r.status, 400, JSON.stringify(query));
      assert.match(r.body.error.message, /query/);
    }
  });

  test('a bank config the modules would refuse later is refused when written, naming the section; free-form keys stay', async () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ llm: { retain: { apiKey: 'sk-x' } } }, /llm/],
      [{ llm: 'groq' }, /llm/],
      [{ threads: { messageTokens: 'many' } }, /threads/],
      [{ retainMode: 'everything' }, /retainMode/],
      [{ disposition: { skepticism: 9 } }, /disposition/],
      [{ disposition: { skeptisism: 2 } }, /disposition/],
      [{ retainMission: 42 }, /retainMission/],
      // A near miss of a setting would leave the setting at its default without a word.
      [{ retainmode: 'verbatim' }, /config key "retainmode" is not a setting: did you mean "retainMode"\?/],
      [{ dispostion: { skepticism: 5 } }, /did you mean "disposition"\?/],
      [{ retain_mission: 'x' }, /did you mean "retainMission"\?/],
      [{ LLM: {} }, /did you mean "llm"\?/],
      [{ llms: 'v' }, /did you mean "llm"\?/],
      [{ 'disposition ': {} }, /config key "disposition " is not a setting: did you mean "disposition"\?/],
    ];
    const before = await s.call<{ config: unknown; updatedAt: string }>('GET', '/v1/banks/v');
    for (const [config, pattern] of bad) {
      for (const [method, path, body] of [
        ['PATCH', '/v1/banks/v', { config }],
        ['POST', '/v1/banks', { id: 'cfg-bad', config }],
      ] as const) {
        const r = await s.call<Err>(method, path, body);
        assert.equal(r.status, 400, `${method} ${JSON.stringify(config)}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.error.message, pattern);
      }
    }
    assert.deepEqual(await s.call('GET', '/v1/banks/v'), before, 'a refused update changes nothing');
    assert.equal((await s.call('GET', '/v1/banks/cfg-bad')).status, 404);
    const ok = await s.call<{ config: Record<string, unknown> }>('PATCH', '/v1/banks/v', {
      config: { team: 'blue', retainMode: 'verbose', disposition: { empathy: 4 }, threads: { messageTokens: 500 } },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.config.team, 'blue');
    // Short free-form keys are not taken for typos ("ttl" is two edits from "llm"); a null removes a key (a merge
    // patch), a setting as well as a free-form one, and is not stored.
    const patched = await s.call<{ config: Record<string, unknown> }>('PATCH', '/v1/banks/v', {
      config: { ttl: 30, team: null, retainMode: null, llm: null },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.config, { ttl: 30, disposition: { empathy: 4 }, threads: { messageTokens: 500 } });
    const created = await s.call<{ config: Record<string, unknown> }>('POST', '/v1/banks', { id: 'cfg-nulls', config: { a: null, b: 1 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.config, { b: 1 });
  });

  test('a body nested deeper than the limit is a 400 wherever the nesting sits, not a stack overflow', async () => {
    const deep = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const cases: Array<[string, string, (d: string) => string]> = [
      ['POST', '/v1/banks', (d) => `{"id":"deep-bank","config":{"team":${d}}}`],
      ['PATCH', '/v1/banks/v', (d) => `{"config":{"team":${d}}}`],
      ['PUT', '/v1/banks/v/threads/t-deep', (d) => `{"settings":{"x":${d}}}`],
      [
        'POST',
        '/v1/banks/v/threads/t-deep/messages',
        (d) => `{"role":"assistant","content":"x","toolCalls":[{"name":"f","arguments":${d}}]}`,
      ],
      ['POST', '/v1/banks/v/reflect', (d) => `{"query":"x","responseSchema":${d}}`],
      ['POST', '/v1/banks/v/consolidation/dead-letters/retry', (d) => `{"factIds":${d}}`],
    ];
    for (const [method, path, body] of cases) {
      const r = await s.call<Err>(method, path, body(deep(100_000)));
      assert.equal(r.status, 400, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, /nest/);
    }
    assert.equal((await s.call('GET', '/v1/banks/deep-bank')).status, 404);
    const ok = await s.call('PATCH', '/v1/banks/v', `{"config":{"team":${deep(20)}}}`);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test('whole-number query parameters: blank, repeated, not a number or out of range is a 400 that says which', async () => {
    /** Every numeric query parameter of every route: path, parameter, and the rule its 400 states. */
    const params: Array<[string, string, string]> = [
      ['/v1/banks/v/facts', 'limit', 'between 1 and 1000'],
      ['/v1/banks/v/facts', 'offset', 'between 0 and 9007199254740991'],
      ['/v1/banks/v/documents', 'limit', 'between 1 and 1000'],
      ['/v1/banks/v/entities', 'offset', 'between 0 and 9007199254740991'],
      ['/v1/banks/v/entities/graph', 'limit', 'between 1 and 500'],
      ['/v1/banks/v/operations', 'limit', 'between 1 and 200'],
      ['/v1/banks/v/tombstones', 'limit', 'between 1 and 1000'],
      ['/v1/banks/v/threads', 'limit', 'between 1 and 1000'],
      ['/v1/banks/v/threads/t-q/messages', 'offset', 'between 0 and 9007199254740991'],
      ['/v1/banks/v/threads/t-q/context', 'maxTokens', 'between 1 and 2000000'],
      ['/v1/banks/v/threads/t-q/events', 'since', 'between 0 and 9007199254740991'],
    ];
    for (const [path, name, range] of params) {
      const rule = `${name} must be a whole number ${range}`;
      const cases: Array<[string, string]> = [
        [`${name}=`, `${rule} (got an empty value)`],
        [`${name}=%20`, `${rule} (got an empty value)`],
        [`${name}=5&${name}=7`, `${name} was given more than once`],
        [`${name}=ten`, `${rule} (got "ten")`],
        [`${name}=2.5`, `${rule} (got "2.5")`],
        [`${name}=-1`, `${rule} (got "-1")`],
        [`${name}=${'9'.repeat(24)}`, `${rule} (got "${'9'.repeat(24)}")`],
      ];
      for (const [query, message] of cases) {
        const r = await s.call<Err>('GET', `${path}?${query}`);
        assert.equal(r.status, 400, `${path}?${query}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.message, `${name}: ${message}`, `${path}?${query}`);
      }
    }
    for (const query of ['limit=1&offset=0', 'limit=1000', 'limit=%207%20', '']) {
      const r = await s.call('GET', `/v1/banks/v/facts?${query}`);
      assert.equal(r.status, 200, `?${query}: ${JSON.stringify(r.body)}`);
    }
  });

  test('unknown keys inside nested request objects are refused like unknown top-level keys', async () => {
    const r = await s.call<Err>('POST', '/v1/banks/v/recall', { query: 'Rome', include: { sourceFacts: true, sorceFacts: true } });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.error.message, /include/);
  });
});
