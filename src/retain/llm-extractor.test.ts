// LLM extraction against a scripted chat-completions server, through the real OpenAI client and the real
// retain pipeline on SQLite: dates made absolute from the item's timestamp, spans from quotes, causes, entities,
// the mission and mode in the prompt, the ledger; and a reply that stays malformed stores nothing at all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, reply, type FakeLlmServer } from '../../test/support/fake-llm-server.ts';
import { GloveEmbedder } from '../embed/glove.ts';
import { TEST_GLOVE_CACHE_FILE } from '../../test/support/embed.ts';
import type { Embedder } from '../embed/ports.ts';
import { Engine } from '../engine.ts';
import { LlmOutputError } from '../llm/errors.ts';
import { createOpenAiCompatibleProvider } from '../llm/openai-compatible.ts';
import { SqliteStore } from '../store/sqlite/store.ts';
import { SqliteUsageLedger } from '../store/sqlite/usage.ts';
import { CairnError } from '../core/errors.ts';
import { LlmExtractor } from './llm-extractor.ts';
import { retainModeOf } from './retain-mode.ts';
import type { ExtractInput } from './extractor.ts';

let server: FakeLlmServer;
let embedder: Embedder;
before(async () => {
  server = await startFakeLlmServer();
  embedder = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
});
after(async () => {
  await server.close();
});

const llm = () => createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'local-model' });

function engineWith(extractor: (store: SqliteStore) => LlmExtractor): { engine: Engine; store: SqliteStore } {
  const store = new SqliteStore({ file: ':memory:' });
  const engine = new Engine({ store, embedder, reranker: null, extractor: extractor(store) });
  return { engine, store };
}

const content = 'I moved to Berlin last June.  So I had to find a new flat\nnear the office. My sister visited in August.';
const wellFormed = {
  facts: [
    {
      what: 'Alice moved to Berlin in June 2023.',
      kind: 'world',
      quote: 'I moved to Berlin last June.',
      when: 'last June',
      occurredStart: null,
      where: 'Berlin',
      who: ['Alice'],
      why: null,
      entities: [{ name: 'Alice', type: 'Person' }],
      causedBy: [],
    },
    {
      what: 'Alice had to find a new flat near her office in Berlin.',
      kind: 'world',
      quote: 'so I had to find a new flat near the office',
      occurredStart: '2023-06',
      entities: [{ name: 'Alice', type: 'person' }],
      causedBy: [0, 7],
    },
    {
      what: "Alice's sister Anna visited Alice in Berlin in August 2023.",
      kind: 'world',
      quote: 'Anna came to see her in Berlin',
      occurredStart: '2023-08-12',
      who: ['Anna', 'my sister'],
      causedBy: [2],
    },
  ],
};

test('a well-formed reply becomes facts with absolute dates, spans, causes and entities, in one write', async () => {
  let ledger: SqliteUsageLedger | undefined;
  const { engine, store } = engineWith((db) => {
    ledger = new SqliteUsageLedger(db.db);
    return new LlmExtractor(llm(), { ledger });
  });
  await engine.createBank({ id: 'alice', config: { retainMission: 'Where Alice lives and who visits her' } });
  server.script(reply.json(wellFormed, { prompt: 420, completion: 180 }));
  const before = server.requests.length;

  const { result } = await engine.retain('alice', { items: [{ content, speaker: 'Alice', timestamp: '2024-03-10T09:00:00Z' }] });
  assert.equal(result?.facts, 3);
  const ids = result?.factIds ?? [];
  const byId = new Map((await store.getFacts('alice', ids)).map((f) => [f.id, f]));
  const [moved, flat, visit] = ids.map((id) => byId.get(id)!);

  // "last June", said in March 2024, read from the item's timestamp: June 2023 as a whole month.
  assert.equal(moved.text, 'Alice moved to Berlin in June 2023.');
  assert.equal(moved.occurredStart, '2023-06-01T00:00:00.000Z');
  assert.equal(moved.occurredEnd, '2023-06-30T23:59:59.999Z');
  assert.equal(flat.occurredStart, '2023-06-01T00:00:00.000Z', 'a written month is the whole month');
  assert.equal(visit.occurredStart, '2023-08-12T00:00:00.000Z');
  assert.equal(visit.occurredEnd, '2023-08-12T23:59:59.999Z');

  // Spans: the quote located in the chunk (loosely for the second), the whole chunk when it is not there.
  assert.equal(content.slice(moved.source!.start, moved.source!.end), 'I moved to Berlin last June.');
  assert.equal(content.slice(flat.source!.start, flat.source!.end), 'So I had to find a new flat\nnear the office');
  assert.deepEqual([visit.source!.start, visit.source!.end], [0, content.length]);

  // Causes: 0 -> 1 kept; an index past the list and a self-reference dropped.
  const causal = (await store.graph.linksOf('alice', ids)).filter((l) => l.type === 'causal');
  assert.ok(causal.some((l) => l.from === moved.id && l.to === flat.id));
  assert.ok(!causal.some((l) => l.from === visit.id || l.to === visit.id));

  // Entities: the model's (type lower-cased), plus names from who/where; "my sister" is not a name.
  const names = new Map((await store.listEntities('alice', 50, 0)).map((e) => [e.name, e.type]));
  assert.equal(names.get('Alice'), 'person');
  assert.equal(names.get('Berlin'), 'place');
  assert.equal(names.get('Anna'), 'person');
  assert.ok(!names.has('my sister'));

  // The prompt carried the timestamp, the speaker and the mission; the schema travelled as JSON schema.
  const body = server.requests[before].body;
  const system = body.messages[0].content;
  assert.match(system, /2024-03-10T09:00:00Z/);
  assert.match(system, /said or written by Alice/);
  assert.match(system, /Where Alice lives and who visits her/);
  assert.match(system, /Mode: concise/);
  assert.equal(body.response_format?.json_schema?.name, 'facts');
  assert.ok(body.messages[1].content.includes(content));

  const usage = await ledger!.query({ bankId: 'alice' });
  assert.deepEqual([usage.total.calls, usage.total.inputTokens, usage.total.outputTokens], [1, 420, 180]);
});

test('a reply malformed twice fails the retain visibly and nothing of the document is stored', async () => {
  const { engine, store } = engineWith(() => new LlmExtractor(llm()));
  await engine.createBank({ id: 'b' });
  const items = [
    { content: 'Ben adopted a cat called Miso.', speaker: 'Ben', documentId: 'chat', timestamp: '2024-01-02T10:00:00Z' },
    { content: 'Ben works at a bakery.', speaker: 'Ben', documentId: 'chat', timestamp: '2024-01-02T10:01:00Z' },
  ];
  server.script(
    reply.json({ facts: [{ what: 'Ben adopted a cat called Miso.', kind: 'world', quote: 'Ben adopted a cat called Miso.' }] }),
    reply.text('{"facts": [{"what": "Ben works at a bakery", "kind": "world"'),
    reply.json({ facts: [{ what: 'Ben works at a bakery', kind: 'someone', quote: 'x' }] }),
  );
  await assert.rejects(engine.retain('b', { items }), (error: unknown) => {
    assert.ok(error instanceof LlmOutputError);
    assert.equal(error.status, 503);
    assert.match(error.message, /kind/);
    return true;
  });
  assert.equal(server.pending, 0);
  assert.equal((await store.listFacts('b', { limit: 10, offset: 0 })).total, 0, "not even the first chunk's fact");
  assert.equal(await store.getDocument('b', 'chat'), null);
  assert.deepEqual(await store.listChunks('b', 'chat'), []);
  assert.equal((await store.backlog('b')).waiting, 0);
});

const input = (mode: ExtractInput['mode']): ExtractInput => ({
  bankId: 'm',
  text: 'Yesterday I finally met Priya at the Lisbon office, to plan the launch.',
  speaker: 'Sam',
  fromAgent: false,
  timestamp: '2024-05-20T12:00:00Z',
  context: 'weekly check-in',
  mode,
});
const modeReply = {
  facts: [
    {
      what: 'Sam met Priya.',
      kind: 'world',
      quote: 'Yesterday I finally met Priya at the Lisbon office, to plan the launch.',
      when: 'yesterday',
      occurredStart: '2024-05-19',
      where: 'the Lisbon office',
      who: ['Priya', 'Sam'],
      why: 'to plan the launch',
      entities: [
        { name: 'Priya', type: 'person' },
        { name: 'Lisbon', type: 'place' },
      ],
    },
  ],
};

test('modes: concise keeps the statement, verbose adds the details it lacks, verbatim keeps the source words', async () => {
  const extractor = new LlmExtractor(llm());
  const texts: string[] = [];
  for (const mode of ['concise', 'verbose', 'verbatim'] as const) {
    server.script(reply.json(modeReply));
    const before = server.requests.length;
    const [fact] = await extractor.extract(input(mode));
    texts.push(fact.text);
    const system = server.requests[before].body.messages[0].content;
    assert.match(system, new RegExp(`Mode: ${mode}`));
    assert.match(system, /Context: weekly check-in/);
    assert.equal(fact.occurredStart, '2024-05-19T00:00:00.000Z');
  }
  assert.deepEqual(texts, [
    'Sam met Priya.',
    'Sam met Priya. (when: yesterday; where: the Lisbon office; why: to plan the launch)',
    'Yesterday I finally met Priya at the Lisbon office, to plan the launch.',
  ]);
});

test('an empty list is a valid answer (nothing worth keeping), and invalid dates are corrected, not stored', async () => {
  const extractor = new LlmExtractor(llm());
  server.script(reply.json({ facts: [] }));
  assert.deepEqual(await extractor.extract(input('concise')), []);

  server.script(
    reply.json({ facts: [{ ...modeReply.facts[0], occurredStart: 'the day before' }] }),
    reply.json({ facts: [{ ...modeReply.facts[0], occurredStart: '2024-05-19T18:30:00Z' }] }),
  );
  const before = server.requests.length;
  const [fact] = await extractor.extract(input('concise'));
  assert.match(server.requests[before + 1].body.messages.at(-1)?.content ?? '', /occurredStart/);
  assert.equal(fact.occurredStart, '2024-05-19T18:30:00.000Z');
  assert.equal(fact.occurredEnd, '2024-05-19T18:30:00.000Z', 'an instant is its own end');
});

test("the bank's retain mode: concise by default, a known mode as set, anything else a 400", () => {
  assert.equal(retainModeOf({}), 'concise');
  assert.equal(retainModeOf({ retainMode: 'verbatim' }), 'verbatim');
  assert.throws(
    () => retainModeOf({ retainMode: 'everything' }),
    (e: unknown) => e instanceof CairnError && e.status === 400,
  );
});

test('code: the prompt keeps it out of facts and names, code fragments are dropped from entities, identifiers become terms', async () => {
  const extractor = new LlmExtractor(llm());
  const text = 'The nightly backup runs this:\n```bash\npg_dump -Fc chat > chat.dump\n```\nIt takes 25 minutes.';
  server.script(
    reply.json({
      facts: [
        {
          what: 'The nightly backup runs pg_dump.',
          kind: 'world',
          quote: 'The nightly backup runs this:',
          entities: [
            { name: 'pg_dump', type: 'tool' },
            { name: 'res.status(500).json', type: null },
            { name: 'const', type: null },
            { name: '});', type: null },
          ],
        },
      ],
    }),
  );
  const before = server.requests.length;
  const [fact] = await extractor.extract({
    bankId: 'm',
    text,
    speaker: 'Sam',
    fromAgent: false,
    timestamp: '2024-05-20T12:00:00Z',
    context: null,
  });
  assert.match(server.requests[before].body.messages[0].content, /never copy code into "what"/);
  assert.deepEqual(fact.entities, [{ name: 'pg_dump', type: 'tool' }]);
  assert.ok(fact.terms?.includes('pg_dump') && fact.terms.includes('chat.dump'), JSON.stringify(fact.terms));
});
