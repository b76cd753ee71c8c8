// End to end over real HTTP on the real embedded store: banks, retain, recall (temporal and graph arms),
// restart, bank deletion, bad input, isolation, auth, async operations, idempotency, OpenAPI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './support/server.ts';
import { keywordIndexOf, keywordTable } from '../src/store/sqlite/keyword-tables.ts';

type Result = {
  id: string;
  text: string;
  kind: string;
  scores: Record<string, number>;
  source: { documentId: string; metadata: Record<string, string> } | null;
};
type Recall = { results: Result[]; trace?: Record<string, unknown> };
type Retain = {
  operationId: string;
  status: string;
  result: { facts: number; factIds: string[]; documentsUnchanged: number; chunksProcessed: number } | null;
};

const aliceItems = [
  {
    content: 'I moved to Berlin to join a robotics startup.',
    speaker: 'Alice',
    timestamp: '2023-06-14T10:00:00Z',
    metadata: { turn: 't1' },
  },
  { content: 'My sister Anna is a violinist in Vienna.', speaker: 'Alice', timestamp: '2023-09-02T10:00:00Z', metadata: { turn: 't2' } },
  { content: 'I adopted a grey cat called Miso.', speaker: 'Alice', timestamp: '2024-01-20T10:00:00Z', metadata: { turn: 't3' } },
  { content: 'Bob started learning to paint watercolours.', speaker: 'Carol', timestamp: '2024-02-11T10:00:00Z', metadata: { turn: 't4' } },
];

describe('core API on the embedded store', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.close();
  });

  test('health and OpenAPI document', async () => {
    const h = await s.call<{ status: string; store: string }>('GET', '/health');
    assert.equal(h.status, 200);
    assert.equal(h.body.store, 'sqlite');
    const doc = await s.call<{ paths: Record<string, unknown> }>('GET', '/openapi.json');
    assert.ok(doc.body.paths['/v1/banks/{bank}/memories']);
    assert.ok(doc.body.paths['/v1/banks/{bank}/recall']);
  });

  test('bank lifecycle: create, get, list, update, conflict', async () => {
    const created = await s.call<{ id: string; mission: string }>('POST', '/v1/banks', { id: 'life', mission: 'track Alice' });
    assert.equal(created.status, 201);
    assert.equal((await s.call('POST', '/v1/banks', { id: 'life' })).status, 409);
    const updated = await s.call<{ mission: string; config: Record<string, unknown> }>('PATCH', '/v1/banks/life', {
      mission: 'new',
      config: { retainMission: 'x' },
    });
    assert.equal(updated.body.mission, 'new');
    assert.equal(updated.body.config.retainMission, 'x');
    const list = await s.call<{ banks: Array<{ id: string }> }>('GET', '/v1/banks');
    assert.ok(list.body.banks.some((b) => b.id === 'life'));
  });

  test('retain then recall returns the right fact with its source and metadata', async () => {
    await s.call('POST', '/v1/banks', { id: 'alice' });
    const r = await s.call<Retain>('POST', '/v1/banks/alice/memories', { items: aliceItems });
    assert.equal(r.status, 200);
    assert.ok(r.body.result && r.body.result.facts >= 4);
    const q = await s.call<Recall>('POST', '/v1/banks/alice/recall', { query: 'Which city did Alice move to?', trace: true });
    assert.equal(q.status, 200);
    const top = q.body.results[0];
    assert.match(top.text, /Berlin/);
    assert.ok(top.source?.documentId);
    assert.equal(top.source.metadata.turn, 't1');
    assert.ok(q.body.trace, 'trace requested');
  });

  test('documents list, and a document shows the chunk text its facts point into; other banks see none of it', async () => {
    const docs = await s.call<{ documents: Array<{ id: string; metadata: Record<string, string> }> }>('GET', '/v1/banks/alice/documents');
    assert.equal(docs.status, 200);
    assert.deepEqual(
      docs.body.documents.map((d) => d.metadata.turn),
      ['t1', 't2', 't3', 't4'],
    );
    const facts = await s.call<{
      facts: Array<{ text: string; source: { documentId: string; chunkId: string; start: number; end: number } }>;
    }>('GET', '/v1/banks/alice/facts?limit=50');
    const berlin = facts.body.facts.find((f) => /Berlin/.test(f.text));
    assert.ok(berlin);
    const doc = await s.call<{ id: string; chunks: Array<{ id: string; text: string; speaker: string | null }> }>(
      'GET',
      `/v1/banks/alice/documents/${berlin.source.documentId}`,
    );
    assert.equal(doc.status, 200);
    const chunk = doc.body.chunks.find((k) => k.id === berlin.source.chunkId);
    assert.ok(chunk, "the fact's chunk is in its document");
    assert.equal(chunk.speaker, 'Alice');
    assert.equal(chunk.text.slice(berlin.source.start, berlin.source.end), 'I moved to Berlin to join a robotics startup.');
    assert.equal((await s.call('GET', '/v1/banks/alice/documents/doc_nope')).status, 404);
    await s.call('POST', '/v1/banks', { id: 'not-alice' });
    assert.equal((await s.call('GET', `/v1/banks/not-alice/documents/${berlin.source.documentId}`)).status, 404);
    assert.deepEqual((await s.call<{ documents: unknown[] }>('GET', '/v1/banks/not-alice/documents')).body.documents, []);
  });

  test('a lone surrogate (a truncated emoji) is stored as one U+FFFD, so spans still point at the fact', async () => {
    assert.equal((await s.call('POST', '/v1/banks', { id: 'broken-text' })).status, 201);
    const content = 'Nina bought a red \uD83D bicycle in Porto. Then she rode it to Braga on Friday.';
    const r = await s.call('POST', '/v1/banks/broken-text/memories', { items: [{ content, speaker: 'Nina \uDE00', context: 'x\uD800' }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const facts = await s.call<{
      facts: Array<{ text: string; speaker: string | null; source: { documentId: string; chunkId: string; start: number; end: number } }>;
    }>('GET', '/v1/banks/broken-text/facts?limit=50');
    const bike = facts.body.facts.find((f) => f.text.includes('bicycle'));
    assert.ok(bike);
    assert.ok(bike.text.includes('red \uFFFD bicycle'), bike.text);
    assert.equal(bike.speaker, 'Nina \uFFFD');
    const doc = await s.call<{ chunks: Array<{ id: string; text: string }> }>(
      'GET',
      `/v1/banks/broken-text/documents/${bike.source.documentId}`,
    );
    const chunk = doc.body.chunks.find((k) => k.id === bike.source.chunkId);
    assert.ok(chunk);
    assert.equal(chunk.text, content.replace('\uD83D', '\uFFFD'));
    for (const f of facts.body.facts)
      assert.equal(chunk.text.slice(f.source.start, f.source.end).includes(f.text.slice(0, 10)), true, f.text);
    // Metadata and tags too, so a retry whose client re-encoded a broken character is the same payload.
    const tagged = { content: 'Omar fixed the gate.', metadata: { 'k\uD800': 'v\uDE00' }, tags: ['t\uD83D'] };
    const first = await s.call<{ operationId: string }>('POST', '/v1/banks/broken-text/memories', {
      items: [tagged],
      operationId: 'key-1',
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await s.call<{ operationId: string }>('POST', '/v1/banks/broken-text/memories', {
      items: [{ ...tagged, metadata: { 'k\uDC00': 'v\uD801' }, tags: ['t\uDFFF'] }],
      operationId: 'key-1',
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.operationId, first.body.operationId);
    const omar = (
      await s.call<{ facts: Array<{ text: string; tags: string[] }> }>('GET', '/v1/banks/broken-text/facts?limit=50')
    ).body.facts.find((f) => f.text.includes('gate'));
    assert.deepEqual(omar?.tags, ['t\uFFFD']);
    const bad = await s.call<{ error: { message: string } }>('POST', '/v1/banks/broken-text/memories', {
      items: [tagged],
      operationId: 'k\uD800',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /operationId holds a lone surrogate/);
  });

  test('first person is resolved to the speaker', async () => {
    const facts = await s.call<{ facts: Array<{ text: string }> }>('GET', '/v1/banks/alice/facts?limit=50');
    assert.ok(
      facts.body.facts.some((f) => /^Alice moved to Berlin/.test(f.text)),
      JSON.stringify(facts.body.facts.map((f) => f.text)),
    );
  });

  test('temporal question with a queryTime ranks the fact from that June first', async () => {
    const q = await s.call<Recall>('POST', '/v1/banks/alice/recall', {
      query: 'What did Alice do last June?',
      queryTime: '2024-03-01T00:00:00Z',
    });
    assert.match(q.body.results[0].text, /Berlin/);
    assert.ok((q.body.results[0].scores.temporal ?? 0) > 0, 'the temporal arm found it');
  });

  test('graph arm finds a fact sharing no word with the query through the entity it names', async () => {
    // "Anna" appears in the query; the fact about her violin shares no other word with it.
    const q = await s.call<Recall>('POST', '/v1/banks/alice/recall', { query: 'Tell me about Anna', trace: true });
    const hit = q.body.results.find((r) => /violinist/.test(r.text));
    assert.ok(hit, 'found the Anna fact');
    assert.ok((hit.scores.graph ?? 0) > 0, 'through the graph arm');
  });

  test('re-retaining an unchanged document changes nothing', async () => {
    const documents = async (): Promise<unknown> =>
      (await s.call<{ documents: unknown[] }>('GET', '/v1/banks/alice/documents')).body.documents;
    const before = await documents();
    const again = await s.call<Retain>('POST', '/v1/banks/alice/memories', { items: aliceItems });
    assert.equal(again.body.result?.facts, 0);
    assert.equal(again.body.result?.documentsUnchanged, aliceItems.length);
    assert.deepEqual(await documents(), before, 'the document records are not rewritten (updatedAt included)');
  });

  test('a changed document re-processes only its changed chunks', async () => {
    const doc = [
      { content: 'Kickoff: the team agreed to ship the beta in May.', documentId: 'notes', speaker: 'PM' },
      { content: 'Risks: the payment API is late.', documentId: 'notes', speaker: 'PM' },
    ];
    const first = await s.call<Retain>('POST', '/v1/banks/alice/memories', { items: doc });
    assert.equal(first.body.result?.chunksProcessed, 2);
    const changed = [doc[0], { ...doc[1], content: 'Risks: the payment API is late and QA is understaffed.' }];
    const second = await s.call<Retain>('POST', '/v1/banks/alice/memories', { items: changed });
    assert.equal(second.body.result?.chunksProcessed, 1);
    const facts = await s.call<{ facts: Array<{ text: string }> }>('GET', '/v1/banks/alice/facts?documentId=notes');
    assert.ok(facts.body.facts.some((f) => /understaffed/.test(f.text)));
    assert.ok(!facts.body.facts.some((f) => /^Risks: the payment API is late\.$/.test(f.text)), 'old version gone');
  });

  test('two banks never see each other', async () => {
    await s.call('POST', '/v1/banks', { id: 'other' });
    await s.call('POST', '/v1/banks/other/memories', { items: [{ content: 'Zed keeps bees on a rooftop in Lisbon.', speaker: 'Zed' }] });
    const fromAlice = await s.call<Recall>('POST', '/v1/banks/alice/recall', { query: 'bees rooftop Lisbon Zed' });
    assert.ok(!fromAlice.body.results.some((r) => /bees/.test(r.text)));
    const fromOther = await s.call<Recall>('POST', '/v1/banks/other/recall', { query: 'Berlin robotics Alice Anna' });
    assert.ok(!fromOther.body.results.some((r) => /Berlin|Anna/.test(r.text)));
  });

  test('bad input gets a clear 4xx and stores nothing', async () => {
    const before = await s.call<{ total: number }>('GET', '/v1/banks/alice/facts?limit=1');
    const cases: Array<[unknown, RegExp]> = [
      [{}, /items/],
      [{ items: [{ speaker: 'x' }] }, /content/],
      [{ items: [{ content: 'ok', timestamp: 'not a date' }] }, /timestamp/],
      [{ items: [{ content: 5 }] }, /content/],
      [{ items: [{ content: 'fine', extra: true }] }, /extra|unrecognized/i],
    ];
    for (const [body, message] of cases) {
      const r = await s.call<{ error: { code: string; message: string } }>('POST', '/v1/banks/alice/memories', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.error.message, message);
    }
    const big = await s.call<{ error: { message: string } }>('POST', '/v1/banks/alice/memories', {
      items: [{ content: 'x'.repeat(10 * 1024 * 1024) }],
    });
    assert.ok(big.status === 400 || big.status === 413, `10 MB item: ${big.status}`);
    assert.match(big.body.error.message, /characters|larger/);
    const unknown = await s.call<{ error: { code: string } }>('POST', '/v1/banks/nope/memories', {
      items: [{ content: 'hello there friend' }],
    });
    assert.equal(unknown.status, 404);
    const badJson = await s.call<{ error: { code: string } }>('POST', '/v1/banks/alice/recall', '{not json');
    assert.equal(badJson.status, 400);
    const badTime = await s.call<{ error: { message: string } }>('POST', '/v1/banks/alice/recall', {
      query: 'x',
      queryTime: 'yesterday-ish',
    });
    assert.equal(badTime.status, 400);
    assert.match(badTime.body.error.message, /queryTime/);
    const misspelled = await s.call<{ error: { message: string } }>('GET', '/v1/banks/alice/facts?kinds=observation');
    assert.equal(misspelled.status, 400, 'an unknown query parameter is refused, not ignored');
    assert.match(misspelled.body.error.message, /kinds/);
    const after = await s.call<{ total: number }>('GET', '/v1/banks/alice/facts?limit=1');
    assert.equal(after.body.total, before.body.total);
  });

  test('async retain returns an operation that reports progress and finishes; operationId is idempotent', async () => {
    const body = { async: true, operationId: 'import-1', items: [{ content: 'Dana runs a bakery in Porto.', speaker: 'Dana' }] };
    const r = await s.call<Retain>('POST', '/v1/banks/alice/memories', body);
    assert.equal(r.status, 202);
    let op: { status: string; progress: { done: number; total: number } } = { status: 'queued', progress: { done: 0, total: 1 } };
    for (let i = 0; i < 100 && op.status !== 'succeeded' && op.status !== 'failed'; i++) {
      await new Promise((res) => setTimeout(res, 50));
      op = (await s.call<typeof op>('GET', `/v1/operations/${r.body.operationId}`)).body;
    }
    assert.equal(op.status, 'succeeded');
    assert.deepEqual(op.progress, { done: 1, total: 1, chunks: { done: 1, total: 1 } });
    const again = await s.call<Retain>('POST', '/v1/banks/alice/memories', body);
    assert.equal(again.body.operationId, r.body.operationId);
  });
});

describe('restart, deletion and auth', () => {
  test('a restart keeps everything; a deleted bank leaves nothing in any index', async () => {
    const first = await startServer();
    await first.call('POST', '/v1/banks', { id: 'keep' });
    await first.call('POST', '/v1/banks/keep/memories', { items: aliceItems });
    const before = await first.call<Recall>('POST', '/v1/banks/keep/recall', { query: 'Miso the cat' });
    await first.stop();
    const second = await startServer({ dataDir: first.dataDir });
    const afterRestart = await second.call<Recall>('POST', '/v1/banks/keep/recall', { query: 'Miso the cat' });
    assert.deepEqual(
      afterRestart.body.results.map((r) => r.id),
      before.body.results.map((r) => r.id),
    );
    const db = (second.store as unknown as { db: import('better-sqlite3').Database }).db;
    const n = keywordIndexOf(db, 'keep');
    assert.ok(n !== null, 'the bank has keyword tables of its own');
    const keywordTables = (): string[] =>
      (db.prepare(`SELECT name FROM sqlite_master`).all() as Array<{ name: string }>)
        .map((r) => r.name)
        .filter((name) => [keywordTable(n, 'fact'), keywordTable(n, 'chunk')].some((t) => name === t || name.startsWith(`${t}_`)));
    assert.ok(keywordTables().length >= 2);
    assert.equal((await second.call('DELETE', '/v1/banks/keep')).status, 200);
    assert.equal((await second.call('GET', '/v1/banks/keep')).status, 404);
    for (const table of [
      'facts',
      'chunks',
      'documents',
      'entities',
      'entity_keys',
      'fact_entities',
      'fact_links',
      'fact_vectors',
      'vector_changes',
      'evidence',
    ]) {
      const n = (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE bank_id = ?`).get('keep') as { n: number }).n;
      assert.equal(n, 0, `${table} still holds rows of the deleted bank`);
    }
    assert.deepEqual(keywordTables(), [], 'no keyword table (nor its shadow tables) of the deleted bank is left');
    assert.equal(keywordIndexOf(db, 'keep'), null);
    assert.equal((db.prepare('SELECT count(*) AS n FROM keyword_changes WHERE bank_id = ?').get('keep') as { n: number }).n, 0);
    await second.close();
  });

  test('with CAIRN_API_KEY every route but /health needs the key; a wrong key touches nothing', async () => {
    const s = await startServer({ env: { CAIRN_API_KEY: 'sekret' } });
    assert.equal((await s.call('GET', '/health')).status, 200);
    assert.equal((await s.call('POST', '/v1/banks', { id: 'x' })).status, 401);
    assert.equal((await s.call('POST', '/v1/banks', { id: 'x' }, { authorization: 'Bearer wrong' })).status, 401);
    assert.equal((await s.engine.listBanks()).length, 0);
    assert.equal((await s.call('POST', '/v1/banks', { id: 'x' }, { authorization: 'Bearer sekret' })).status, 201);
    await s.close();
  });
});
