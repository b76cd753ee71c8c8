// Recall over a real SQLite store: each arm finds what it should, the filters and bank isolation hold,
// the token budget trims, and the trace reports every arm with its timing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Chunk, Entity, Fact, FactKind, FactLink } from '../core/types.ts';
import type { Embedder, Reranker } from '../embed/ports.ts';
import { SqliteStore } from '../store/sqlite/store.ts';
import { contentWords } from '../text/words.ts';
import { countTokens } from '../text/tokens.ts';
import { recall, type RecallDeps } from './recall.ts';
import type { ArmTrace } from './types.ts';

/** Test data: a deterministic bag-of-words embedder (each content word hashed to a signed axis of 64). */
const hashEmbedder: Embedder = {
  id: 'test-hash-64',
  dimensions: 64,
  async embed(texts) {
    return texts.map((text) => {
      const v = new Float32Array(64);
      for (const w of contentWords(text)) {
        const h = createHash('sha1').update(w).digest();
        v[h[0] % 64] += h[1] & 1 ? 1 : -1;
      }
      const norm = Math.hypot(...v);
      return norm > 0 ? v.map((x) => x / norm) : v;
    });
  },
};

interface FactSpec {
  key: string;
  text: string;
  kind?: FactKind;
  entities?: string[];
  occurredStart?: string;
  occurredEnd?: string;
  tags?: string[];
  createdAt?: string;
  supersededAt?: string;
}
interface ChunkSpec {
  text: string;
  speaker?: string;
  timestamp: string;
  facts: FactSpec[];
}

const ids = new Map<string, string>();
const idOf = (key: string): string => {
  const id = ids.get(key);
  if (!id) throw new Error(`no fact ${key}`);
  return id;
};
let seq = 0;

async function writeDocument(
  store: SqliteStore,
  bankId: string,
  docId: string,
  chunkSpecs: ChunkSpec[],
  links: Array<[string, string, FactLink['type']]> = [],
): Promise<void> {
  const now = new Date().toISOString();
  const entities = new Map<string, Entity>();
  const chunks: Chunk[] = [];
  const facts: Fact[] = [];
  chunkSpecs.forEach((c, i) => {
    const chunk: Chunk = {
      id: `${bankId}-${docId}-c${i}`,
      bankId,
      documentId: docId,
      index: i,
      itemId: `${docId}-i${i}`,
      text: c.text,
      contentHash: `h${i}`,
      speaker: c.speaker ?? null,
      timestamp: c.timestamp,
      context: null,
      metadata: { source: 'test' },
      tags: [],
    };
    chunks.push(chunk);
    for (const spec of c.facts) {
      const id = `fct_${bankId}_${spec.key}_${seq++}`;
      ids.set(`${bankId}:${spec.key}`, id);
      const entityIds = (spec.entities ?? []).map((name) => {
        const eid = `ent_${bankId}_${name.toLowerCase()}`;
        const e = entities.get(eid) ?? {
          id: eid,
          bankId,
          name,
          aliases: [],
          type: 'person',
          mentionCount: 0,
          firstSeen: c.timestamp,
          lastSeen: c.timestamp,
        };
        e.mentionCount++;
        entities.set(eid, e);
        return eid;
      });
      const start = Math.max(0, c.text.indexOf(spec.text.split(' ')[1] ?? ''));
      facts.push({
        id,
        bankId,
        kind: spec.kind ?? 'world',
        text: spec.text,
        occurredStart: spec.occurredStart ?? null,
        occurredEnd: spec.occurredEnd ?? null,
        mentionedAt: c.timestamp,
        entities: entityIds,
        source: { documentId: docId, chunkId: chunk.id, itemId: chunk.itemId, start, end: start + 5 },
        speaker: c.speaker ?? null,
        metadata: { source: 'test', doc: docId },
        tags: spec.tags ?? [],
        stance: null,
        context: null,
        status: spec.supersededAt ? 'superseded' : 'active',
        validFrom: null,
        validTo: null,
        supersededBy: null,
        supersededAt: spec.supersededAt ?? null,
        consolidatedAt: null,
        createdAt: spec.createdAt ?? now,
        updatedAt: now,
      });
    }
  });
  const vectors = await hashEmbedder.embed(facts.map((f) => f.text));
  await store.writeItem({
    bankId,
    document: { id: docId, bankId, contentHash: docId, metadata: {}, tags: [], createdAt: now, updatedAt: now },
    chunks,
    removeChunkIds: [],
    facts,
    entities: [...entities.values()],
    links: links.map(([from, to, type]) => ({ bankId, from: idOf(`${bankId}:${from}`), to: idOf(`${bankId}:${to}`), type, weight: 1 })),
    vectors: facts.map((f, i) => ({ id: f.id, vector: vectors[i] })),
    embedder: hashEmbedder.id,
  });
}

let dir: string;
let store: SqliteStore;
let deps: RecallDeps;
const A = 'bank-a';
const B = 'bank-b';
const C = 'bank-c';
const D = 'bank-d';
const QUERY_TIME = '2025-03-10T12:00:00.000Z';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-recall-'));
  store = new SqliteStore({ file: join(dir, 'x.db') });
  deps = { store, embedder: hashEmbedder };
  const now = new Date().toISOString();
  for (const id of [A, B, C, D])
    await store.createBank({ id, name: id, mission: '', config: {}, embedder: null, createdAt: now, updatedAt: now });

  await writeDocument(store, A, 'chat-1', [
    {
      text: 'Maya: We finally went hiking in the Dolomites with my sister. The views were unreal.',
      speaker: 'Maya',
      timestamp: '2024-08-20T10:00:00.000Z',
      facts: [
        {
          key: 'hike',
          text: 'Maya went hiking in the Dolomites with her sister.',
          entities: ['Maya'],
          kind: 'experience',
          tags: ['personal'],
        },
      ],
    },
    {
      text: 'Priya: We tried the new bakery on Elm Street yesterday.',
      speaker: 'Priya',
      timestamp: '2024-09-02T10:00:00.000Z',
      facts: [
        {
          key: 'bakery',
          text: 'Priya tried a new bakery.',
          entities: ['Priya'],
          tags: ['personal'],
          occurredStart: '2024-09-01T00:00:00.000Z',
        },
      ],
    },
    {
      text: 'Priya: My favourite pastry is a cardamom bun, no contest.',
      speaker: 'Priya',
      timestamp: '2024-09-02T10:05:00.000Z',
      facts: [{ key: 'cardamom', text: 'Priya likes cardamom buns best.', entities: ['Priya'], tags: ['personal'] }],
    },
    {
      text: 'Maya: He adopted a greyhound, he calls it Comet.',
      speaker: 'Maya',
      timestamp: '2024-10-05T10:00:00.000Z',
      facts: [{ key: 'greyhound', text: 'He adopted a greyhound called Comet.', entities: ['Zoltan'], tags: ['personal'] }],
    },
  ]);
  await writeDocument(
    store,
    A,
    'work-log',
    [
      {
        text: 'The team shipped the billing release on June 18.',
        timestamp: '2024-06-18T16:00:00.000Z',
        facts: [
          { key: 'release', text: 'The team shipped the billing release.', occurredStart: '2024-06-18T16:00:00.000Z', tags: ['work'] },
        ],
      },
      {
        text: 'The office moved to the third floor in January.',
        timestamp: '2025-01-15T09:00:00.000Z',
        facts: [{ key: 'office', text: 'The office moved to the third floor.', occurredStart: '2025-01-15T09:00:00.000Z', tags: ['work'] }],
      },
      {
        text: 'The basement flooded after the storm.',
        timestamp: '2024-11-03T09:00:00.000Z',
        facts: [{ key: 'flood', text: 'The basement flooded after the storm.', tags: ['work'] }],
      },
      {
        text: 'Insurance paid for new carpets.',
        timestamp: '2024-11-03T09:01:00.000Z',
        facts: [{ key: 'carpets', text: 'Insurance paid for new carpets.', tags: ['work'] }],
      },
      {
        text: 'Standup notes: the billing dashboard needs work.',
        timestamp: '2024-12-01T09:00:00.000Z',
        facts: [{ key: 'dashboard', text: 'The billing dashboard needs work.', tags: ['work'], kind: 'experience' }],
      },
    ],
    [['flood', 'carpets', 'causal']],
  );
  await writeDocument(store, A, 'home', [
    {
      text: 'Maya lives in Porto.',
      timestamp: '2024-01-10T09:00:00.000Z',
      facts: [
        {
          key: 'porto',
          text: 'Maya lives in Porto.',
          entities: ['Maya'],
          createdAt: '2024-01-10T09:00:00.000Z',
          supersededAt: '2024-09-01T00:00:00.000Z',
        },
      ],
    },
    {
      text: 'Maya lives in Lisbon now.',
      timestamp: '2024-09-01T00:00:00.000Z',
      facts: [{ key: 'lisbon', text: 'Maya lives in Lisbon.', entities: ['Maya'], createdAt: '2024-09-01T00:00:00.000Z' }],
    },
  ]);
  // Bank C: a hub (Ana, in most facts), near-duplicates for MMR, and two documents for the document flow.
  const hubTopics = [
    'tea',
    'chess',
    'tennis',
    'piano',
    'sailing',
    'knitting',
    'poetry',
    'astronomy',
    'origami',
    'cycling',
    'gardening',
    'jazz',
  ];
  await writeDocument(store, C, 'ana', [
    ...hubTopics.map((topic, i) => ({
      text: `Ana: I spent the day on ${topic}.`,
      speaker: 'Ana',
      timestamp: `2024-03-${String(i + 1).padStart(2, '0')}T10:00:00.000Z`,
      facts: [{ key: `ana-${topic}`, text: `Ana spent the day on ${topic}.`, entities: ['Ana'] }],
    })),
    // A question by someone else shares more words with a query about what Ana said than her answer does.
    {
      text: 'Ben: When does the harbour ferry schedule change?',
      speaker: 'Ben',
      timestamp: '2024-03-20T10:00:00.000Z',
      facts: [{ key: 'ferry-question', text: 'Ben asked when the harbour ferry schedule changes.', entities: ['Ben'] }],
    },
    {
      text: 'Ana: The ferry runs hourly from May.',
      speaker: 'Ana',
      timestamp: '2024-03-20T10:01:00.000Z',
      facts: [{ key: 'ferry-answer', text: 'Ana said the ferry runs hourly from May.', entities: ['Ana'] }],
    },
  ]);
  await writeDocument(store, C, 'lighthouse', [
    {
      text: 'The lighthouse keeper painted the door blue.',
      timestamp: '2024-04-01T10:00:00.000Z',
      facts: [{ key: 'lighthouse', text: 'The lighthouse keeper painted the door blue.' }],
    },
    {
      text: 'Leo bakes sourdough bread.',
      timestamp: '2024-04-02T10:00:00.000Z',
      facts: [{ key: 'sourdough-1', text: 'Leo bakes sourdough bread.' }],
    },
    {
      text: 'Leo bakes sourdough bread daily.',
      timestamp: '2024-04-03T10:00:00.000Z',
      facts: [{ key: 'sourdough-2', text: 'Leo bakes sourdough bread daily.' }],
    },
    {
      text: 'Leo sells sourdough at the market.',
      timestamp: '2024-04-04T10:00:00.000Z',
      facts: [{ key: 'sourdough-3', text: 'Leo sells sourdough at the market.' }],
    },
  ]);
  // Same fact, same chunk text, in two documents; only trip-a has more chunks about kayaks.
  await writeDocument(store, C, 'trip-b', [
    { text: 'We rented a kayak.', timestamp: '2024-05-01T10:00:00.000Z', facts: [{ key: 'aa-kayak', text: 'Rented a kayak.' }] },
  ]);
  await writeDocument(store, C, 'trip-a', [
    { text: 'We rented a kayak.', timestamp: '2024-05-02T10:00:00.000Z', facts: [{ key: 'zz-kayak', text: 'Rented a kayak.' }] },
    { text: 'The kayak was red and fast, the best kayak on the lake.', timestamp: '2024-05-02T10:05:00.000Z', facts: [] },
  ]);
  // Bank D: a conversation where the answer shares no word with the question that names the topic.
  await writeDocument(
    store,
    D,
    'chat',
    [
      {
        text: 'Lou: We finally repainted the kitchen.',
        speaker: 'Lou',
        timestamp: '2024-07-01T10:00:00.000Z',
        facts: [{ key: 'kitchen', text: 'Lou repainted the kitchen.' }],
      },
      {
        text: 'Kim: Lovely! How long have you two been married?',
        speaker: 'Kim',
        timestamp: '2024-07-01T10:01:00.000Z',
        facts: [
          { key: 'lovely', text: 'Lovely!' },
          { key: 'question', text: 'How long have you two been married?' },
        ],
      },
      {
        text: 'Lou: Five years already. Time flies.',
        speaker: 'Lou',
        timestamp: '2024-07-01T10:02:00.000Z',
        facts: [
          { key: 'answer', text: 'Five years already.' },
          { key: 'flies', text: 'Time flies.' },
        ],
      },
      {
        text: 'Kim: The garden looks great too.',
        speaker: 'Kim',
        timestamp: '2024-07-01T10:03:00.000Z',
        facts: [{ key: 'garden', text: 'The garden looks great.' }],
      },
    ],
    [
      ['kitchen', 'lovely', 'temporal'],
      ['lovely', 'question', 'temporal'],
      ['question', 'answer', 'temporal'],
      ['answer', 'flies', 'temporal'],
      ['flies', 'garden', 'temporal'],
    ],
  );
  // A speaker goes on, after the other side's reply, with what the query asks about in other words.
  await writeDocument(
    store,
    D,
    'chat-2',
    [
      {
        text: 'Sam: I use my influence to help causes I believe in.',
        speaker: 'Sam',
        timestamp: '2024-07-02T10:00:00.000Z',
        facts: [{ key: 'causes', text: 'Sam uses influence to help causes.' }],
      },
      {
        text: 'Ria: That is admirable.',
        speaker: 'Ria',
        timestamp: '2024-07-02T10:01:00.000Z',
        facts: [{ key: 'admirable', text: 'That is admirable.' }],
      },
      {
        text: 'Sam: Youth sports, mostly, and clean water.',
        speaker: 'Sam',
        timestamp: '2024-07-02T10:02:00.000Z',
        facts: [{ key: 'youth', text: 'Youth sports and clean water.' }],
      },
      { text: 'Ria: Nice.', speaker: 'Ria', timestamp: '2024-07-02T10:03:00.000Z', facts: [{ key: 'nice', text: 'Nice.' }] },
    ],
    [
      ['causes', 'admirable', 'temporal'],
      ['admirable', 'youth', 'temporal'],
      ['youth', 'nice', 'temporal'],
    ],
  );
  await writeDocument(store, B, 'other', [
    {
      text: 'Rahul bakes cardamom buns every Sunday.',
      timestamp: '2024-06-20T09:00:00.000Z',
      facts: [{ key: 'cardamom', text: 'Rahul bakes cardamom buns every Sunday.', entities: ['Rahul'] }],
    },
  ]);
});

after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const NO_FOLLOWUPS = { answerShare: 0, continuationShare: 0, questionPenalty: 0 };

const armIds = (
  trace: NonNullable<Awaited<ReturnType<typeof recall>>['trace']>,
  arm: 'semantic' | 'keyword' | 'graph' | 'temporal',
): string[] => trace.arms[arm].hits.map((h) => h.id);

test('recalls made one after another in this process let the event loop turn', async () => {
  // A timer (or a worker thread's answer) waits for a turn of the event loop; a loop of recalls whose reads all finish
  // on this thread never gave it one.
  let fired = 0;
  const timer = setInterval(() => fired++, 0);
  try {
    for (let i = 0; i < 20; i++) await recall(deps, A, { query: 'cardamom buns' });
    assert.ok(fired > 0, 'the timer fired during the recalls');
  } finally {
    clearInterval(timer);
  }
});

test('semantic and keyword arms rank the fact sharing the query words first', async () => {
  const r = await recall(deps, A, { query: 'cardamom buns', trace: true });
  assert.ok(r.trace);
  assert.equal(armIds(r.trace, 'semantic')[0], idOf(`${A}:cardamom`));
  assert.equal(armIds(r.trace, 'keyword')[0], idOf(`${A}:cardamom`));
  assert.equal(r.results[0].id, idOf(`${A}:cardamom`));
  const top = r.results[0];
  assert.equal(top.text, 'Priya likes cardamom buns best.');
  assert.ok(top.scores.semantic !== undefined && top.scores.keyword !== undefined && top.scores.fused > 0);
  assert.deepEqual(top.entities, ['Priya']);
  assert.equal(top.source?.documentId, 'chat-1');
  assert.equal(top.source?.chunkId, `${A}-chat-1-c2`);
  assert.equal(top.source?.itemId, 'chat-1-i2');
  assert.equal(top.source?.metadata.doc, 'chat-1');
  assert.equal(top.mentionedAt, '2024-09-02T10:05:00.000Z');
});

test('the keyword arm finds a fact through the words of its chunk', async () => {
  const r = await recall(deps, A, { query: 'Elm Street', trace: true });
  assert.ok(r.trace);
  const keyword = armIds(r.trace, 'keyword');
  assert.equal(keyword[0], idOf(`${A}:bakery`)); // the fact's own text has neither word
  assert.equal(r.trace.arms.keyword.detail?.chunkMatches, 1);
  assert.equal(r.results[0].id, idOf(`${A}:bakery`));
});

test('the graph arm finds a fact that shares no word with the query but concerns an entity it names', async () => {
  const r = await recall(deps, A, { query: 'Tell me about Zoltan', trace: true });
  assert.ok(r.trace);
  const greyhound = idOf(`${A}:greyhound`);
  assert.equal(armIds(r.trace, 'graph')[0], greyhound);
  assert.ok(!armIds(r.trace, 'keyword').includes(greyhound));
  assert.deepEqual(
    ((r.trace.arms.graph.detail?.entities ?? []) as Array<{ name: string }>).map((e) => e.name),
    ['Zoltan'],
  );
  assert.equal(r.results[0].id, greyhound);
  assert.deepEqual(r.results[0].entities, ['Zoltan']);
});

test('the graph arm spreads from seeds over fact links', async () => {
  const r = await recall(deps, A, { query: 'basement flooded', trace: true });
  assert.ok(r.trace);
  const carpets = idOf(`${A}:carpets`);
  assert.equal(armIds(r.trace, 'graph')[0], carpets);
  assert.ok(!armIds(r.trace, 'keyword').includes(carpets));
  assert.equal(r.results[0].id, idOf(`${A}:flood`));
  assert.equal(r.results[1].id, carpets);
});

test('the temporal arm ranks the fact from "last June" first, read from queryTime', async () => {
  const r = await recall(deps, A, { query: 'What happened last June?', queryTime: QUERY_TIME, trace: true });
  assert.ok(r.trace);
  const ranges = r.trace.arms.temporal.detail?.ranges as Array<{ start: string; end: string }>;
  assert.equal(ranges.length, 1);
  assert.ok(ranges[0].start.startsWith('2024-06-01') && ranges[0].end.startsWith('2024-06-30'));
  assert.equal(armIds(r.trace, 'temporal')[0], idOf(`${A}:release`));
  assert.equal(r.results[0].id, idOf(`${A}:release`));
  // A year later the same words point at another June: nothing of this bank is near it.
  const later = await recall(deps, A, { query: 'What happened last June?', queryTime: '2026-03-10T00:00:00.000Z', trace: true });
  assert.equal(later.trace?.arms.temporal.count, 0);
  // Without a time expression the arm stays out.
  const none = await recall(deps, A, { query: 'billing release', trace: true });
  assert.equal(none.trace?.arms.temporal.count, 0);
});

test('tags and types filter every arm and the results', async () => {
  const work = await recall(deps, A, { query: 'billing release Maya Priya cardamom', tags: ['work'], limit: 20, trace: true });
  const workIds = new Set([`${A}:release`, `${A}:office`, `${A}:flood`, `${A}:carpets`, `${A}:dashboard`].map(idOf));
  assert.ok(work.results.length > 0);
  for (const r of work.results) assert.ok(workIds.has(r.id), `${r.text} is not tagged work`);
  for (const arm of ['semantic', 'keyword', 'graph', 'temporal'] as const)
    for (const id of armIds(work.trace!, arm)) assert.ok(workIds.has(id), `${arm} returned an untagged fact`);

  const experience = await recall(deps, A, { query: 'billing hiking Dolomites dashboard', types: ['experience'], limit: 20 });
  assert.deepEqual(new Set(experience.results.map((r) => r.id)), new Set([idOf(`${A}:hike`), idOf(`${A}:dashboard`)]));
  assert.ok(experience.results.every((r) => r.kind === 'experience'));
});

test('banks are isolated', async () => {
  const a = await recall(deps, A, { query: 'cardamom buns', limit: 20 });
  const b = await recall(deps, B, { query: 'cardamom buns', limit: 20 });
  assert.ok(a.results.length > 1);
  assert.ok(a.results.every((r) => r.id.startsWith(`fct_${A}_`)));
  assert.deepEqual(
    b.results.map((r) => r.id),
    [idOf(`${B}:cardamom`)],
  );
  await assert.rejects(recall(deps, 'no-such-bank', { query: 'x' }), /does not exist/);
});

test('superseded facts are left out, except as of a time they were still believed', async () => {
  const now = await recall(deps, A, { query: 'Where does Maya live?', limit: 20 });
  const nowIds = now.results.map((r) => r.id);
  assert.ok(nowIds.includes(idOf(`${A}:lisbon`)));
  assert.ok(!nowIds.includes(idOf(`${A}:porto`)));
  const then = await recall(deps, A, { query: 'Where does Maya live?', asOf: '2024-05-01T00:00:00.000Z', limit: 20 });
  const thenIds = then.results.map((r) => r.id);
  assert.ok(thenIds.includes(idOf(`${A}:porto`)));
  assert.ok(!thenIds.includes(idOf(`${A}:lisbon`)));
});

test('maxTokens trims the results with the real tokenizer; limit caps them', async () => {
  const full = await recall(deps, A, { query: 'Maya Priya billing', limit: 20 });
  assert.ok(full.results.length >= 4);
  const budget = full.results[0].tokens + full.results[1].tokens + 1;
  const trimmed = await recall(deps, A, { query: 'Maya Priya billing', limit: 20, maxTokens: budget });
  assert.deepEqual(
    trimmed.results.map((r) => r.id),
    full.results.slice(0, 2).map((r) => r.id),
  );
  assert.equal(
    trimmed.tokens,
    trimmed.results.reduce((n, r) => n + countTokens(r.text), 0),
  );
  assert.ok(trimmed.tokens <= budget);
  const limited = await recall(deps, A, { query: 'Maya Priya billing', limit: 3 });
  assert.equal(limited.results.length, 3);
});

test('trace reports every arm with its timing; without trace there is none', async () => {
  const r = await recall(deps, A, { query: 'What did Maya do last August?', queryTime: QUERY_TIME, trace: true });
  assert.ok(r.trace);
  for (const arm of ['semantic', 'keyword', 'graph', 'temporal'] as const) {
    const t: ArmTrace = r.trace.arms[arm];
    assert.ok(Number.isFinite(t.ms) && t.ms >= 0, `${arm} has a timing`);
    assert.ok(t.ms <= r.trace.timings.total);
    assert.equal(t.count, t.hits.length);
    assert.ok(t.count > 0, `${arm} found something`);
  }
  assert.equal(r.trace.arms.temporal.hits[0].id, idOf(`${A}:hike`));
  assert.ok(r.trace.timings.arms <= r.trace.timings.total);
  assert.equal(r.trace.reranker, null);
  assert.equal((await recall(deps, A, { query: 'Maya' })).trace, undefined);
});

test('a cross-encoder rescores the top candidates', async () => {
  /** Test data: scores documents by how many query words they contain. */
  const overlap: Reranker = {
    id: 'word-overlap',
    async score(query, documents) {
      const q = new Set(contentWords(query));
      return documents.map((d) => contentWords(d).filter((w) => q.has(w)).length);
    },
  };
  const r = await recall({ ...deps, reranker: overlap, settings: { rerankWeight: 1 } }, A, {
    query: 'billing dashboard work',
    budget: 'low',
    trace: true,
  });
  assert.equal(r.results[0].id, idOf(`${A}:dashboard`));
  assert.equal(r.results[0].scores.rerank, 3);
  assert.equal(r.trace?.reranker, 'word-overlap');
  assert.ok((r.trace?.reranked ?? 0) > 0 && (r.trace?.reranked ?? 0) <= 20);
});

test('a "when" question with no date of its own makes the temporal arm rank the relevant dated facts', async () => {
  const r = await recall(deps, A, { query: 'When did Priya try the bakery?', trace: true });
  assert.ok(r.trace);
  assert.equal(r.trace.arms.temporal.detail?.asksWhen, true);
  assert.equal(armIds(r.trace, 'temporal')[0], idOf(`${A}:bakery`));
  const dated = new Set([`${A}:bakery`, `${A}:release`, `${A}:office`].map(idOf));
  for (const id of armIds(r.trace, 'temporal')) assert.ok(dated.has(id), 'only dated facts');
  assert.equal(r.results[0].id, idOf(`${A}:bakery`));
  const plain = await recall(deps, A, { query: 'Did Priya try the bakery?', trace: true });
  assert.equal(plain.trace?.arms.temporal.count, 0);
});

test('a hub named in the query is left out of the text search but raises the facts that mention it', async () => {
  const r = await recall(deps, C, { query: 'What did Ana say about the lighthouse?', trace: true });
  assert.ok(r.trace);
  assert.equal(r.trace.focus, 'What did say about the lighthouse?');
  assert.deepEqual(
    r.trace.entities.map((e) => [e.name, e.hub]),
    [['Ana', true]],
  );
  assert.equal(r.results[0].id, idOf(`${C}:lighthouse`));
  // Not a hub: searched for by name and spread over.
  const z = await recall(deps, A, { query: 'Tell me about Zoltan', trace: true });
  assert.equal(z.trace?.focus, 'about Zoltan', '"tell me" is about the asking, not the topic');
  assert.deepEqual(
    z.trace?.entities.map((e) => [e.name, e.hub]),
    [['Zoltan', false]],
  );
});

test("a fact mentioning an entity the query names rises above another speaker's fact on the same topic", async () => {
  const query = 'What did Ana tell about the harbour ferry schedule?';
  const answer = idOf(`${C}:ferry-answer`);
  const question = idOf(`${C}:ferry-question`);
  const plain = await recall({ ...deps, settings: { namedShare: 0, otherSpeakerWeight: 1 } }, C, { query, trace: true });
  assert.ok(plain.trace);
  assert.equal(armIds(plain.trace, 'keyword')[0], question, 'more of the query words');
  assert.equal(plain.results[0].id, question);
  const named = await recall(deps, C, { query });
  assert.equal(named.results[0].id, answer);
  assert.equal(named.results[1].id, question);
  assert.ok(named.results[0].scores.fused > plain.results[1].scores.fused);
  // Ana speaks in this bank: a question about her is answered by her own turns, whatever the names in the texts.
  const spoken = await recall({ ...deps, settings: { namedShare: 0 } }, C, { query });
  assert.equal(spoken.results[0].id, answer);
  // A first-person question ("What did I tell Ana ...") asks about the asker's own words: no speaker is preferred.
  const mine = await recall({ ...deps, settings: { namedShare: 0 } }, C, {
    query: 'What did I tell Ana about the harbour ferry schedule?',
  });
  assert.equal(mine.results[0].id, question);
});

test('the turn after a question found is raised as its answer', async () => {
  const query = 'How long has the couple been married?';
  const plain = await recall({ ...deps, settings: NO_FOLLOWUPS }, D, { query });
  assert.equal(plain.results[0].id, idOf(`${D}:question`));
  const r = await recall(deps, D, { query, trace: true });
  const order = r.results.map((x) => x.id);
  assert.equal(order[0], idOf(`${D}:answer`));
  assert.ok(order.indexOf(idOf(`${D}:flies`)) < order.indexOf(idOf(`${D}:garden`)), 'the whole reply turn, not the turn after it');
  assert.ok(order.indexOf(idOf(`${D}:question`)) < order.indexOf(idOf(`${D}:kitchen`)));
  const scoreIn = (res: typeof r, key: string): number | undefined => res.results.find((x) => x.id === idOf(`${D}:${key}`))?.score;
  assert.equal(scoreIn(r, 'kitchen'), scoreIn(plain, 'kitchen'), 'the turn before the question is not its answer');
  // The question, having a reply, keeps less than it had.
  const before = plain.results.find((x) => x.id === idOf(`${D}:question`))?.score ?? 0;
  const after = r.results.find((x) => x.id === idOf(`${D}:question`))?.score ?? 0;
  assert.ok(after < before);
});

test("a speaker's next turn after the other side's reply is raised as going on with the same thing", async () => {
  const query = 'Which causes get help?';
  const plain = await recall({ ...deps, settings: NO_FOLLOWUPS }, D, { query });
  const r = await recall(deps, D, { query });
  const rank = (res: typeof r, key: string): number => res.results.findIndex((x) => x.id === idOf(`${D}:${key}`));
  const scoreIn = (res: typeof r, key: string): number | undefined => res.results.find((x) => x.id === idOf(`${D}:${key}`))?.score;
  assert.equal(rank(plain, 'causes'), 0);
  assert.equal(rank(r, 'causes'), 0);
  assert.ok(rank(plain, 'youth') > rank(plain, 'admirable'));
  assert.ok(rank(r, 'youth') < rank(r, 'admirable'), "the speaker's next turn rises above the reply in between");
  assert.equal(scoreIn(r, 'admirable'), scoreIn(plain, 'admirable'), 'the reply in between is not raised');
});

test('the keyword arm lifts facts of documents whose chunks match again and again', async () => {
  const r = await recall(deps, C, { query: 'kayak', trace: true });
  assert.ok(r.trace);
  const keyword = armIds(r.trace, 'keyword');
  const a = keyword.indexOf(idOf(`${C}:zz-kayak`));
  const b = keyword.indexOf(idOf(`${C}:aa-kayak`));
  assert.ok(a >= 0 && b >= 0);
  assert.ok(a < b, 'the fact in the document about kayaks ranks first, although its id sorts last');
  assert.equal(r.trace.arms.keyword.detail?.documents, 2);
});

test('MMR moves distinct facts above a near-duplicate', async () => {
  const query = 'Leo bakes sourdough bread';
  const plain = await recall(deps, C, { query, limit: 3 });
  const dup = [idOf(`${C}:sourdough-1`), idOf(`${C}:sourdough-2`)];
  assert.deepEqual(new Set(plain.results.slice(0, 2).map((r) => r.id)), new Set(dup));
  const diverse = await recall({ ...deps, settings: { mmrLambda: 0.5 } }, C, { query, limit: 3 });
  assert.ok(dup.includes(diverse.results[0].id));
  assert.ok(!dup.includes(diverse.results[1].id), 'the second near-duplicate gave way');
  assert.ok(!dup.includes(diverse.results[2].id));
});

test('a request mmr turns diversity on, and 0 turns it off, whatever the settings say', async () => {
  const query = 'Leo bakes sourdough bread';
  const dup = [idOf(`${C}:sourdough-1`), idOf(`${C}:sourdough-2`)];
  const on = await recall(deps, C, { query, limit: 3, mmr: 0.5 });
  assert.ok(!dup.includes(on.results[1].id), 'the second near-duplicate gave way');
  const off = await recall({ ...deps, settings: { mmrLambda: 0.5 } }, C, { query, limit: 3, mmr: 0 });
  assert.deepEqual(new Set(off.results.slice(0, 2).map((r) => r.id)), new Set(dup));
});

test('a question asking for a set also searches the words nearest the set (an embedder that knows words)', async () => {
  const bank = 'bank-sets';
  const now = new Date().toISOString();
  await store.createBank({ id: bank, name: bank, mission: '', config: {}, embedder: null, createdAt: now, updatedAt: now });
  await writeDocument(store, bank, 'band', [
    {
      text: 'The band rehearses on Fridays.',
      timestamp: '2024-05-01T10:00:00.000Z',
      facts: [{ key: 'rehearse', text: 'The band rehearses on Fridays.' }],
    },
    {
      text: 'The violin needs new strings.',
      timestamp: '2024-05-02T10:00:00.000Z',
      facts: [{ key: 'violin', text: 'The violin needs new strings.' }],
    },
    {
      text: 'The van broke down on the highway.',
      timestamp: '2024-05-03T10:00:00.000Z',
      facts: [{ key: 'van', text: 'The van broke down on the highway.' }],
    },
  ]);
  const query = 'What instruments does the band own?';
  const violin = idOf(`${bank}:violin`);
  const similarWords = (word: string) =>
    word === 'instruments'
      ? [
          { word: 'guitars', similarity: 0.62 },
          { word: 'violin', similarity: 0.58 },
          { word: 'politics', similarity: 0.2 },
        ]
      : [];
  const words: RecallDeps = { ...deps, embedder: { ...hashEmbedder, similarWords } };

  const plain = await recall(deps, bank, { query, trace: true });
  assert.equal(plain.trace?.arms.keyword.detail?.expansion, undefined);
  assert.equal(plain.results.find((r) => r.id === violin)?.scores.keyword, undefined);

  const expanded = await recall(words, bank, { query, trace: true });
  assert.deepEqual(expanded.trace?.arms.keyword.detail?.expansion, ['guitars', 'violin']);
  const hit = expanded.results.find((r) => r.id === violin);
  assert.ok(hit?.scores.keyword !== undefined, 'the violin fact is a keyword match through the expansion');
  assert.ok(
    expanded.results.findIndex((r) => r.id === violin) < plain.results.findIndex((r) => r.id === violin),
    'and ranks higher than without it',
  );
  // Not a set question: no expansion.
  const single = await recall(words, bank, { query: 'What instrument does the band own?', trace: true });
  assert.equal(single.trace?.arms.keyword.detail?.expansion, undefined);
});
