// Retain and operations under hostile use, over real HTTP on the real embedded store: identical items (in one
// request, across requests, async), idempotency keys (another payload, parallel requests, lookup by key), the
// one bank id rule, operation input left out of reads, and a bank deleted while an async retain runs.
import { until } from './support/poll.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer, type TestServer } from './support/server.ts';

type RetainResult = { documents: number; documentsUnchanged: number; chunksProcessed: number; facts: number; factIds: string[] };
type Retain = { operationId: string; status: string; result: RetainResult | null };
type Op = {
  id: string;
  bankId: string;
  status: string;
  progress: { done: number; total: number };
  result: RetainResult | null;
  error: string | null;
  input?: unknown;
};
type ApiError = { error: { code: string; message: string } };

/** A GET whose path goes out exactly as written (no dot-segment resolution, no re-encoding). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('retain hardening over HTTP', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.close();
  });

  const newBank = async (id: string): Promise<void> => assert.equal((await s.call('POST', '/v1/banks', { id })).status, 201);
  const op = async (id: string, query = ''): Promise<{ status: number; body: Op }> =>
    s.call<Op>('GET', `/v1/operations/${encodeURIComponent(id)}${query}`);
  const finished = (id: string): Promise<{ status: number; body: Op }> =>
    until(
      `operation ${id} to finish`,
      () => op(id),
      (r) => r.status !== 200 || r.body.status === 'succeeded' || r.body.status === 'failed',
    );

  test('identical items in one request are each stored, never a 500; the same request again changes nothing', async () => {
    await newBank('dups');
    const items = [
      { content: 'ok', speaker: 'Alice' },
      { content: 'ok', speaker: 'Alice' },
      { content: 'thanks', speaker: 'Alice', timestamp: '2024-01-01T10:00:00Z' },
      { content: 'thanks', speaker: 'Alice', timestamp: '2024-01-01T10:05:00Z' },
      { content: 'thanks', speaker: 'Bob', timestamp: '2024-01-01T10:05:00Z' },
      { content: 'I moved to Lisbon in March.', speaker: 'Alice', documentId: 'chat-1' },
      { content: 'ok', speaker: 'Bob', documentId: 'chat-1' },
      { content: 'I moved to Lisbon in March.', speaker: 'Alice', documentId: 'chat-1' },
      { content: 'ok', speaker: 'Bob', documentId: 'chat-1' },
    ];
    const r = await s.call<Retain>('POST', '/v1/banks/dups/memories', { items });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.result?.documents, 6, 'two standalone "ok", three "thanks", one chat');
    assert.equal(r.body.result?.chunksProcessed, 9, 'every occurrence stored');
    const chat = await s.call<{ chunks: Array<{ text: string; speaker: string }> }>('GET', '/v1/banks/dups/documents/chat-1');
    assert.deepEqual(
      chat.body.chunks.map((c) => `${c.speaker}: ${c.text}`),
      ['Alice: I moved to Lisbon in March.', 'Bob: ok', 'Alice: I moved to Lisbon in March.', 'Bob: ok'],
      'repeated turns of a document keep their places',
    );
    const lisbon = await s.call<{ facts: Array<{ text: string }> }>('GET', '/v1/banks/dups/facts?documentId=chat-1');
    assert.equal(lisbon.body.facts.filter((f) => /Lisbon/.test(f.text)).length, 2, 'a fact per occurrence');

    const again = await s.call<Retain>('POST', '/v1/banks/dups/memories', { items });
    assert.equal(again.status, 200);
    assert.equal(again.body.result?.documentsUnchanged, 6, 'retrying the request stores nothing twice');
    assert.equal(again.body.result?.facts, 0);

    // Across two requests: an item already stored is the same item; appended repeats of a document are kept.
    const one = await s.call<Retain>('POST', '/v1/banks/dups/memories', { items: [{ content: 'ok', speaker: 'Alice' }] });
    assert.equal(one.body.result?.documentsUnchanged, 1);
    const appended = await s.call<Retain>('POST', '/v1/banks/dups/memories', {
      documentMode: 'append',
      items: [
        { content: 'ok', speaker: 'Bob', documentId: 'chat-1' },
        { content: 'ok', speaker: 'Bob', documentId: 'chat-1' },
        { content: 'ok', speaker: 'Bob', documentId: 'chat-1' },
      ],
    });
    assert.equal(appended.status, 200, JSON.stringify(appended.body));
    const chatAfter = await s.call<{ chunks: Array<{ text: string }> }>('GET', '/v1/banks/dups/documents/chat-1');
    assert.equal(chatAfter.body.chunks.length, 5, 'the two repeats already there are not added again, the third is');
  });

  test('identical items in an async retain: the operation succeeds', async () => {
    await newBank('dups-async');
    const items = Array.from({ length: 6 }, () => ({ content: 'thanks!', speaker: 'Carol' }));
    const r = await s.call<Retain>('POST', '/v1/banks/dups-async/memories', { items, async: true });
    assert.equal(r.status, 202);
    const done = await finished(r.body.operationId);
    assert.equal(done.body.status, 'succeeded', JSON.stringify(done.body));
    assert.equal(done.body.result?.documents, 6);
  });

  test('an operationId reused with another payload is refused, naming the conflict; nothing of it is stored', async () => {
    await newBank('idem');
    const first = await s.call<Retain>('POST', '/v1/banks/idem/memories', {
      operationId: 'batch-7',
      items: [{ content: 'Dana runs a bakery in Porto.' }],
    });
    assert.equal(first.status, 200);
    for (const changed of [
      { operationId: 'batch-7', items: [{ content: 'Erik sails a boat in Oslo.' }] },
      { operationId: 'batch-7', items: [{ content: 'Dana runs a bakery in Porto.' }], documentMode: 'append' },
      { operationId: 'batch-7', async: true, items: [{ content: 'Erik sails a boat in Oslo.' }] },
    ]) {
      const again = await s.call<ApiError>('POST', '/v1/banks/idem/memories', changed);
      assert.equal(again.status, 422, JSON.stringify(again.body));
      assert.match(again.body.error.message, /batch-7/);
      assert.match(again.body.error.message, /another payload|different payload/);
    }
    const facts = await s.call<{ facts: Array<{ text: string }> }>('GET', '/v1/banks/idem/facts');
    assert.ok(!facts.body.facts.some((f) => /Oslo/.test(f.text)), 'the refused items are not stored');
    // The same payload (key order and async aside) is the same request: its first outcome.
    const same = await s.call<Retain>('POST', '/v1/banks/idem/memories', {
      items: [{ content: 'Dana runs a bakery in Porto.' }],
      operationId: 'batch-7',
      async: true,
    });
    assert.equal(same.body.operationId, first.body.operationId);
  });

  test('parallel sync retains with one operationId run once', async () => {
    await newBank('race');
    const items = Array.from({ length: 30 }, (_, i) => ({
      content: `On day ${i} Gus repaired bicycle number ${i} in Ghent.`,
      speaker: 'Gus',
    }));
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => s.call<Retain & ApiError>('POST', '/v1/banks/race/memories', { operationId: 'race-key', items })),
    );
    const ok = answers.filter((a) => a.status === 200);
    assert.ok(ok.length >= 1);
    assert.ok(
      answers.every((a) => a.status === 200 || a.status === 409),
      answers.map((a) => a.status).join(','),
    );
    for (const busy of answers.filter((a) => a.status === 409))
      assert.match(busy.body.error.message, /race-key.*still running|still running/);
    assert.equal(new Set(ok.map((a) => a.body.operationId)).size, 1, 'one operation for the key');
    for (const a of ok) assert.deepEqual(a.body.result, ok[0].body.result, 'every answer is the first outcome');
    assert.equal(ok[0].body.result?.documentsUnchanged, 0);
    const facts = await s.call<{ total: number }>('GET', '/v1/banks/race/facts?limit=1');
    assert.equal(facts.body.total, ok[0].body.result?.facts);
  });

  test('GET /v1/operations/{id} finds an operation by its id and by its idempotency key; input only on request', async () => {
    await newBank('look');
    const plain = await s.call<Retain>('POST', '/v1/banks/look/memories', { items: [{ content: 'Hana grows tomatoes.' }] });
    const byId = await op(plain.body.operationId);
    assert.equal(byId.status, 200, 'a sync retain without a key can be looked up too');
    assert.equal(byId.body.status, 'succeeded');
    assert.deepEqual(byId.body.result, plain.body.result);

    const keyed = await s.call<Retain>('POST', '/v1/banks/look/memories', {
      operationId: 'nightly/2024-05-01 ü',
      async: true,
      items: [{ content: 'Ivo plays chess.' }],
    });
    assert.equal(keyed.status, 202);
    const done = await finished(keyed.body.operationId);
    assert.equal(done.body.status, 'succeeded');
    assert.equal(done.body.input, undefined, 'the request input is left out by default');
    const byKey = await op('nightly/2024-05-01 ü');
    assert.equal(byKey.status, 200, JSON.stringify(byKey.body));
    assert.equal(byKey.body.id, keyed.body.operationId);
    const withInput = await op(keyed.body.operationId, '?include=input');
    assert.deepEqual(withInput.body.input, { items: [{ content: 'Ivo plays chess.' }], documentMode: 'replace' });
    assert.equal((await op(keyed.body.operationId, '?include=everything')).status, 400);

    // A key used in two banks names two operations: the bank says which.
    await newBank('look-2');
    const other = await s.call<Retain>('POST', '/v1/banks/look-2/memories', {
      operationId: 'nightly/2024-05-01 ü',
      items: [{ content: 'Jo bakes bread.' }],
    });
    assert.equal(other.status, 200);
    const ambiguous = await s.call<ApiError>('GET', `/v1/operations/${encodeURIComponent('nightly/2024-05-01 ü')}`);
    assert.equal(ambiguous.status, 409);
    assert.match(ambiguous.body.error.message, /look-2/);
    assert.match(ambiguous.body.error.message, /\?bank=/);
    assert.equal((await op('nightly/2024-05-01 ü', '?bank=look-2')).body.id, other.body.operationId);
    assert.equal((await op('no-such-operation')).status, 404);
  });

  test('one bank id rule: dots-only, percent signs, unicode, slashes and 129+ characters are refused with a 400 naming the rule', async () => {
    for (const id of ['.', '..', '...', '%2e', 'a/b', 'bänk', 'a b', '', 'x'.repeat(129), 'x'.repeat(200)]) {
      const r = await s.call<ApiError>('POST', '/v1/banks', { id });
      assert.equal(r.status, 400, `${JSON.stringify(id)}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, /letters, digits/, id);
    }
    // Sent as is. (`%2e` alone is a dot segment: URL parsing, the server's included, resolves it before routing, which
    // is why a bank named `.` could never be reached.)
    for (const path of ['%2e%2e%2e', '...', 'b%C3%A4nk', 'a%20b', 'a%2Fb', 'x'.repeat(200)]) {
      const r = await rawGet(s.url, `/v1/banks/${path}/facts`);
      assert.equal(r.status, 400, `${path}: ${r.status} ${r.body}`);
      assert.match(r.body, /letters, digits/);
    }
    for (const id of ['a.b', '.hidden', 'a..b', 'A-1_b', 'x'.repeat(128)]) {
      assert.equal((await s.call('POST', '/v1/banks', { id })).status, 201, id);
      assert.equal((await s.call('GET', `/v1/banks/${id}`)).status, 200, `${id} is reachable`);
      const r = await s.call<Retain>('POST', `/v1/banks/${id}/memories`, { items: [{ content: 'Kai swims.' }] });
      assert.equal(r.status, 200, id);
      assert.equal((await s.call('DELETE', `/v1/banks/${id}`)).status, 200, id);
    }
  });

  test('deleting a bank during an async retain leaves the operation failed with a clear error', async () => {
    await newBank('doomed');
    const items = Array.from({ length: 300 }, (_, i) => ({
      content: `On day ${i} Lena counted ${i} herons at the lake near Delft.`,
      speaker: 'Lena',
    }));
    const r = await s.call<Retain>('POST', '/v1/banks/doomed/memories', { items, async: true, operationId: 'doomed-import' });
    assert.equal(r.status, 202);
    const queued = await s.call<Retain>('POST', '/v1/banks/doomed/memories', {
      items: [{ content: 'Queued behind the first.' }],
      async: true,
    });
    assert.equal((await s.call('DELETE', '/v1/banks/doomed')).status, 200);
    for (const id of [r.body.operationId, queued.body.operationId]) {
      const done = await finished(id);
      assert.equal(done.status, 200, `operation ${id} can still be read: ${JSON.stringify(done.body)}`);
      assert.equal(done.body.status, 'failed');
      assert.match(done.body.error ?? '', /bank 'doomed' was deleted/);
    }
    assert.equal((await op('doomed-import', '?bank=doomed')).body.id, r.body.operationId, 'by its key too');
    assert.equal(
      (await op(r.body.operationId, '?include=input')).body.input,
      null,
      "the deleted bank's content is not kept in the operation",
    );
    const recreated = await s.call('POST', '/v1/banks', { id: 'doomed' });
    assert.equal(recreated.status, 201);
    assert.equal(
      (await s.call<{ total: number }>('GET', '/v1/banks/doomed/facts?limit=1')).body.total,
      0,
      'nothing of the running retain reached the new bank',
    );
    // A retry with the same key and items runs again (a failed operation does not hold its key).
    const retry = await s.call<Retain>('POST', '/v1/banks/doomed/memories', { items, async: true, operationId: 'doomed-import' });
    assert.notEqual(retry.body.operationId, r.body.operationId);
    assert.equal((await finished(retry.body.operationId)).body.status, 'succeeded');
    assert.equal((await op('doomed-import')).body.id, retry.body.operationId, 'the key names the new operation');
  });

  test('after a restart, a synchronous retain the process was running fails with a clear error; a keyed one is finished', async () => {
    await newBank('restarted');
    const now = new Date().toISOString();
    const base = {
      bankId: 'restarted',
      kind: 'retain',
      status: 'running' as const,
      result: null,
      error: null,
      createdAt: now,
      updatedAt: now,
    };
    await s.store.createOperation({ ...base, id: 'op-sync-plain', progress: { done: 0, total: 1 }, input: null });
    const input = { items: [{ content: 'Rosa keeps bees in Utrecht.' }], documentMode: 'replace' };
    assert.equal(
      (
        await s.store.bindOperationKey('restarted', 'sync-key', 'h', {
          ...base,
          id: 'op-sync-keyed',
          progress: { done: 0, total: 1 },
          input,
        })
      ).created,
      true,
    );
    await s.engine.operations.resume();
    await s.engine.operations.idle();
    const plain = await op('op-sync-plain');
    assert.equal(plain.body.status, 'failed');
    assert.match(plain.body.error ?? '', /process stopped during this synchronous retain.*send the request again/);
    const keyed = await op('sync-key');
    assert.equal(keyed.body.status, 'succeeded', JSON.stringify(keyed.body));
    assert.equal(keyed.body.result?.documents, 1);
  });
});
