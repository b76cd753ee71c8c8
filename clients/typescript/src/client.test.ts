// The TypeScript client: its types regenerated from the live OpenAPI document equal the committed ones (it cannot
// drift from the API), it works end to end against a running Cairn, and it retries 429/503 as the server asks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generatedTypes, openApiDocument, SCHEMA_FILE } from '../../../scripts/generate-client.ts';
import { startServer, type TestServer } from '../../../test/support/server.ts';
import { CairnClient, CairnError } from './index.ts';

test('the committed types equal those generated from the live OpenAPI document (run npm run client:generate)', async () => {
  const fresh = await generatedTypes(await openApiDocument());
  const committed = readFileSync(SCHEMA_FILE, 'utf8');
  assert.ok(fresh === committed, 'clients/typescript/src/schema.ts is stale: run `npm run client:generate` and commit it');
});

describe('against a running Cairn', () => {
  const KEY = 'client-key';
  let server: TestServer;
  let cairn: CairnClient;
  before(async () => {
    server = await startServer({ env: { CAIRN_API_KEY: KEY } });
    cairn = new CairnClient({ baseUrl: server.url, apiKey: KEY });
  });
  after(() => server.close());

  test('banks, retain, recall, reflect, why, consolidation and forgetting', async () => {
    const bank = await cairn.createBank({ id: 'sam', mission: 'Remember what Sam works on' });
    assert.equal(bank.id, 'sam');
    assert.ok((await cairn.listBanks()).some((b) => b.id === 'sam'));
    const retained = await cairn.retain('sam', {
      items: [
        { content: 'Sam is rewriting the billing service in Rust.', timestamp: '2024-05-02', documentId: 'billing' },
        { content: 'Sam plays the cello on Sundays.', timestamp: '2024-05-03', documentId: 'cello' },
      ],
    });
    assert.equal(retained.status, 'succeeded');
    const recalled = await cairn.recall('sam', { query: 'What is Sam rewriting?', limit: 5 });
    const billing = recalled.results.find((r) => r.text.includes('billing'));
    assert.ok(billing, JSON.stringify(recalled.results.map((r) => r.text)));
    const reflected = await cairn.reflect('sam', { query: 'What is Sam rewriting?' });
    assert.ok([...reflected.basedOn.facts, ...reflected.basedOn.observations].includes(billing.id));
    assert.match(JSON.stringify(await cairn.why('sam', billing.id)), /billing service/);
    assert.ok((await cairn.consolidationStatus('sam')).backlog >= 1);
    await cairn.forgetDocument('sam', 'billing', 'no longer relevant');
    const after = await cairn.recall('sam', { query: 'What is Sam rewriting?', limit: 5 });
    assert.ok(!after.results.some((r) => r.id === billing.id));
    await cairn.deleteBank('sam', 'the project ended');
    await assert.rejects(
      cairn.getBank('sam'),
      (e: unknown) => e instanceof CairnError && e.status === 404 && /"the project ended"/.test(e.message),
    );
  });

  test('an async retain is waited for with its progress', async () => {
    await cairn.createBank({ id: 'async' });
    const started = await cairn.retainAsync('async', {
      items: Array.from({ length: 5 }, (_, i) => ({ content: `Note ${i}: the ferry leaves at ${8 + i} am.` })),
    });
    assert.ok(started.status === 'queued' || started.status === 'running' || started.status === 'succeeded');
    const seen: Array<[number, number]> = [];
    const op = await cairn.waitForOperation(started.operationId, { intervalMs: 20, onProgress: (d, t) => seen.push([d, t]) });
    assert.equal(op.status, 'succeeded');
    assert.deepEqual(seen.at(-1), [5, 5]);
  });

  test('thread memory: append, remember, context, and its events as an async iterable', async () => {
    await cairn.createBank({ id: 'chat' });
    await cairn.appendMessages('chat', 't1', [{ role: 'user', content: 'My name is Priya and I prefer green tea.' }]);
    const controller = new AbortController();
    const events = cairn.threadEvents('chat', 't1', { signal: controller.signal });
    const first = events.next();
    await cairn.remember('chat', 't1', 'The user is called Priya.');
    const event = await first;
    assert.equal(event.done, false);
    assert.equal(event.value?.type, 'working-memory.updated');
    controller.abort();
    await events.return(undefined);
    assert.match(JSON.stringify(await cairn.threadContext('chat', 't1')), /Priya/);
  });

  test('errors are CairnErrors with status and code; a wrong key is a 401', async () => {
    await assert.rejects(cairn.recall('nobody', { query: 'x' }), (e: unknown) => {
      assert.ok(e instanceof CairnError);
      assert.equal(e.status, 404);
      assert.equal(e.code, 'not_found');
      return true;
    });
    await assert.rejects(
      cairn.retain('sam', { items: [] }),
      (e: unknown) => e instanceof CairnError && e.status === 400 && /items/.test(e.message),
    );
    const wrong = new CairnClient({ baseUrl: server.url, apiKey: 'wrong' });
    await assert.rejects(wrong.listBanks(), (e: unknown) => e instanceof CairnError && e.status === 401 && e.code === 'unauthorized');
  });
});

test('429, and 503 with Retry-After, are retried (POST bodies replayed); retries run out into a CairnError', async () => {
  const answers: Array<{ status: number; headers?: Record<string, string>; body: string }> = [];
  const bodies: string[] = [];
  let streamClosed = false;
  const fake = createServer((req, res) => {
    if (req.url?.endsWith('/events')) {
      // An event stream that stays open until the client goes.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\nevent: working-memory.updated\ndata: {"n":1}\n\n');
      req.on('close', () => (streamClosed = true));
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      const next = answers.shift() ?? { status: 500, body: '{}' };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body);
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  try {
    const busy = JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } });
    answers.push(
      { status: 429, headers: { 'retry-after': '0' }, body: busy },
      { status: 503, headers: { 'retry-after': '0' }, body: JSON.stringify({ error: { code: 'unavailable', message: 'busy' } }) },
      { status: 200, body: JSON.stringify({ results: [], tokens: 0 }) },
    );
    const client = new CairnClient({ baseUrl });
    const answer = await client.recall('b', { query: 'where?' });
    assert.deepEqual(answer.results, []);
    assert.equal(bodies.length, 3);
    assert.ok(
      bodies.every((b) => b === JSON.stringify({ query: 'where?' })),
      'the body is sent again on each retry',
    );

    // A 503 without Retry-After (an LLM call that failed after the server's own retries) is not sent again.
    answers.push({ status: 503, body: JSON.stringify({ error: { code: 'unavailable', message: 'the LLM failed' } }) });
    await assert.rejects(client.recall('b', { query: 'again' }), /503 unavailable/);
    assert.equal(bodies.length, 4);

    answers.push(...Array.from({ length: 3 }, () => ({ status: 429, headers: { 'retry-after': '0' }, body: busy })));
    const limited = new CairnClient({ baseUrl, maxRetries: 2 });
    await assert.rejects(limited.recall('b', { query: 'x' }), (e: unknown) => {
      assert.ok(e instanceof CairnError);
      assert.equal(e.status, 429);
      assert.equal(e.code, 'rate_limited');
      assert.equal(e.retryAfterMs, 0);
      return true;
    });
    answers.length = 0;
    answers.push({ status: 429, headers: { 'retry-after': '3600' }, body: busy });
    const started = Date.now();
    await assert.rejects(new CairnClient({ baseUrl, maxRetryWaitMs: 1000 }).recall('b', { query: 'x' }), /429 rate_limited/);
    assert.ok(Date.now() - started < 5000, 'a wait longer than maxRetryWaitMs is not waited for');

    // An abort ends a Retry-After wait at once.
    answers.length = 0;
    answers.push({ status: 429, headers: { 'retry-after': '20' }, body: busy });
    const controller = new AbortController();
    const waiting = client.raw.POST('/v1/banks/{bank}/recall', {
      params: { path: { bank: 'b' } },
      body: { query: 'x' },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    const t0 = Date.now();
    await assert.rejects(waiting);
    assert.ok(Date.now() - t0 < 5000, 'the abort did not wait out Retry-After');

    // A proxy's HTML page becomes a short message; a 200 that is not JSON a CairnError.
    answers.push({ status: 502, body: `<html><body>${'Bad gateway. '.repeat(200)}</body></html>` });
    await assert.rejects(
      client.recall('b', { query: 'x' }),
      (e: unknown) => e instanceof CairnError && e.status === 502 && e.message.length < 400,
    );
    answers.push({ status: 200, body: '<html>hello</html>' });
    await assert.rejects(client.recall('b', { query: 'x' }), (e: unknown) => e instanceof CairnError && e.code === 'bad_response');

    // Leaving a thread-events loop closes its connection.
    for await (const event of client.threadEvents('b', 't')) {
      assert.equal(event.type, 'working-memory.updated');
      break;
    }
    const deadline = Date.now() + 5000;
    while (!streamClosed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(streamClosed, 'the event stream was closed when the loop ended');
  } finally {
    await new Promise<void>((resolve) => fake.close(() => resolve()));
  }
});
