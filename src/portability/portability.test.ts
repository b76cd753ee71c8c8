// Export then import reproduces a bank exactly: a bank built by the real retain pipeline and consolidated by the
// real worker (observations with evidence and history, a supersession, a deletion's blanked observation and its
// tombstone) with thread memory (messages, some bridged into facts; observations and reflections of a thread and of
// a resource; working memory) is exported, imported into a fresh embedded store, and compared record by record;
// recall on the copy returns the same ids. Also: an archive without vectors is re-embedded, an archive of another
// embedder is re-embedded with the importing one, a store whose message numbers are taken gets the thread renumbered
// consistently, a version 1 archive is still read, and broken archives are refused without leaving a half-imported bank.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { OfflineConsolidator } from '../consolidate/offline.ts';
import { ConsolidationWorker } from '../consolidate/worker.ts';
import type { Embedder } from '../embed/ports.ts';
import { createEmbedder } from '../embed/select.ts';
import { MODEL_FIXTURES_DIR, TEST_CACHE_DIR } from '../../test/support/embed.ts';
import { TransformersEmbedder } from '../embed/transformers.ts';
import { Engine } from '../engine.ts';
import { OfflineExtractor } from '../retain/offline-extractor.ts';
import type { Chunk, Entity, Fact } from '../core/index.ts';
import type { MemoryStore } from '../store/ports.ts';
import { SqliteStore } from '../store/sqlite/store.ts';
import { SqliteThreadStore } from '../store/sqlite/threads.ts';
import { ThreadMemory } from '../threads/memory.ts';
import type { ThreadStore } from '../threads/ports.ts';
import { resourceRecordId, threadRecordId, type ThreadMessage } from '../threads/types.ts';
import { copiedId } from './copy.ts';
import { exportBank, exportBankToFile } from './export.ts';
import { importBank } from './import.ts';

const BANK = 'alice';
const QUERIES = [
  'Where does Alice live?',
  'What instrument does Anna play?',
  'Who is Miso?',
  'What did Alice do in June 2023?',
  'robotics startup',
];

// Times in the canonical form the API stores (retain through the engine takes them as given; an import makes every
// time canonical).
const conversation = [
  {
    content: 'I moved to Berlin to join a robotics startup.',
    speaker: 'Alice',
    timestamp: '2023-06-14T10:00:00.000Z',
    documentId: 'chat-1',
    tags: ['life'],
  },
  {
    content: 'My sister Anna is a violinist in Vienna.',
    speaker: 'Alice',
    timestamp: '2023-06-14T10:05:00.000Z',
    documentId: 'chat-1',
    tags: ['family'],
  },
  {
    content: 'Anna plays the violin every evening.',
    speaker: 'Alice',
    timestamp: '2023-06-14T10:06:00.000Z',
    documentId: 'chat-1',
    tags: ['family'],
  },
  { content: 'I adopted a grey cat called Miso.', speaker: 'Alice', timestamp: '2024-01-20T10:00:00.000Z', documentId: 'chat-2' },
  { content: 'Miso likes to sleep on my keyboard.', speaker: 'Alice', timestamp: '2024-01-21T10:00:00.000Z', documentId: 'chat-2' },
  { content: 'Bob started learning to paint watercolours.', speaker: 'Carol', timestamp: '2024-02-11T10:00:00.000Z', documentId: 'chat-3' },
];
const later = [
  {
    content: 'I moved to Munich last month.',
    speaker: 'Alice',
    timestamp: '2024-05-02T10:00:00.000Z',
    documentId: 'chat-4',
    tags: ['life'],
  },
  {
    content: 'I work at a robotics startup in Munich now.',
    speaker: 'Alice',
    timestamp: '2024-05-02T10:01:00.000Z',
    documentId: 'chat-4',
    tags: ['life'],
  },
];

// A thread that bridges its messages into facts, and two threads of one resource pooling their memory (whose
// observations are bridged); settings small enough for observations, archived ones and reflections to appear.
const tripLines = [
  'I am planning a trip to Lisbon in May with my sister Anna.',
  'We want a hotel near the Alfama district, under 150 euros a night.',
  'Anna is vegetarian, so restaurants must have vegetarian dishes.',
  'I prefer trains over flights for the trip from Porto.',
  'Book a fado show for the second evening.',
  'My budget for the whole trip is 2000 euros.',
  'Anna arrives one day later, on the 12th of May.',
  'We would like a day trip to Sintra.',
];
const THREAD_SETTINGS = {
  messageTokens: 40,
  bufferTokens: false,
  observationTokens: 60,
  reflectionBufferActivation: false,
  reflectionConsolidationThreshold: 2,
  workingMemory: { autoUpdate: true },
};

async function buildThreads(memory: ThreadMemory, bankId: string): Promise<void> {
  await memory.updateBankSettings(bankId, THREAD_SETTINGS);
  await memory.putThread(bankId, 'trip', { settings: { bridge: 'messages' } });
  let t = Date.parse('2024-04-01T10:00:00Z');
  const at = (): string => new Date((t += 60_000)).toISOString();
  for (const content of tripLines)
    await memory.append(bankId, 'trip', {
      messages: [
        { role: 'user', content, timestamp: at() },
        { role: 'assistant', name: 'planner', content: `Noted: ${content}`, timestamp: at() },
      ],
    });
  await memory.putThread(bankId, 'u1-a', { resourceId: 'user-1', settings: { scope: 'resource', bridge: 'observations' } });
  await memory.putThread(bankId, 'u1-b', { resourceId: 'user-1', settings: { scope: 'resource' } });
  for (const [i, content] of tripLines.entries())
    await memory.append(bankId, i % 2 ? 'u1-a' : 'u1-b', { messages: [{ role: 'user', content, timestamp: at() }] });
  await memory.remember(bankId, 'u1-a', 'Prefers window seats');
  await memory.idle();
}

/** A bank's thread memory as the thread port shows it: threads, messages, items of every record, working memory, bridge state. */
async function threadSnapshot(threads: ThreadStore, bankId: string) {
  const list = await threads.listThreads(bankId, { limit: 1000, offset: 0 });
  const records = [
    ...list.map((t) => threadRecordId(t.id)),
    ...new Set(list.flatMap((t) => (t.resourceId ? [resourceRecordId(t.resourceId)] : []))),
  ];
  return {
    threads: list.map((t) => ({ ...t, bankId: 'x' })),
    messages: await Promise.all(list.map(async (t) => (await threads.listMessages(bankId, t.id)).map((m) => ({ ...m, bankId: 'x' })))),
    watermarks: await Promise.all(list.map((t) => threads.watermarks(bankId, t.id))),
    unbridgedMessages: await Promise.all(list.map(async (t) => (await threads.unbridgedMessages(bankId, t.id, 1000)).map((m) => m.id))),
    items: await Promise.all(records.map(async (r) => (await threads.listItems(bankId, r)).map((i) => ({ ...i, bankId: 'x' })))),
    unbridgedItems: await Promise.all(records.map(async (r) => (await threads.unbridgedObservations(bankId, r, 1000)).map((i) => i.id))),
    workingMemory: await Promise.all(
      records.map(async (r) => {
        const wm = await threads.getWorkingMemory(bankId, r);
        return wm && { ...wm, bankId: 'x' };
      }),
    ),
  };
}

/** The same with every message number replaced by the message's id (for a copy whose messages were renumbered). */
function bySeqIds(s: Awaited<ReturnType<typeof threadSnapshot>>) {
  const ids = new Map(s.messages.flat().map((m) => [m.seq, m.id]));
  const id = (seq: number | null): string | null => (seq === null || seq === 0 ? null : (ids.get(seq) ?? `missing ${seq}`));
  const ascending = (ms: ThreadMessage[]): boolean => ms.every((m, i) => i === 0 || ms[i - 1].seq < m.seq);
  return {
    ...s,
    messages: s.messages.map((ms) => ({ ascending: ascending(ms), messages: ms.map(({ seq: _, ...m }) => m) })),
    watermarks: s.watermarks.map((w) => ({ observed: id(w.observed), buffered: id(w.buffered) })),
    items: s.items.map((is) => is.map((i) => ({ ...i, fromSeq: id(i.fromSeq), toSeq: id(i.toSeq) }))),
  };
}

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'cairn-portability-'));
  dirs.push(d);
  return d;
};

function engineOn(store: MemoryStore, embedder: Embedder): Engine {
  return new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor() });
}

/** Everything a bank is, in a comparable form (facts in insertion order; sets sorted). */
async function snapshot(store: MemoryStore, bankId: string) {
  const bank = await store.getBank(bankId);
  const facts = (await store.listFacts(bankId, { limit: 10_000, offset: 0, includeSuperseded: true })).facts;
  const documents = await store.listDocuments(bankId, 1000, 0);
  const observationIds = facts.filter((f) => f.kind === 'observation').map((f) => f.id);
  const vectors = await store.getVectors(
    bankId,
    facts.map((f) => f.id),
  );
  return {
    bank: bank && { name: bank.name, mission: bank.mission, config: bank.config, embedder: bank.embedder, createdAt: bank.createdAt },
    documents: documents.map((d) => ({ id: d.id, contentHash: d.contentHash, metadata: d.metadata, tags: d.tags, createdAt: d.createdAt })),
    chunks: await Promise.all(documents.map((d) => store.listChunks(bankId, d.id))),
    facts: facts.map((f) => ({ ...f, bankId: 'x', entities: [...f.entities].sort() })),
    entities: await store.listEntities(bankId, 10_000, 0).then((es) => es.map((e) => ({ ...e, bankId: 'x' }))),
    links: (await store.listLinks(bankId, 10_000, 0)).map((l) => `${l.from}>${l.to}:${l.type}:${l.weight}`).sort(),
    observations: await store
      .getObservations(bankId, observationIds)
      .then((os) => os.map((o) => ({ id: o.id, text: o.text, proofCount: o.proofCount }))),
    evidence: await Promise.all(observationIds.map((id) => store.evidenceOf(bankId, id))),
    history: await Promise.all(observationIds.map((id) => store.historyOf(bankId, id))),
    vectors: Object.fromEntries([...vectors].map(([id, v]) => [id, Array.from(v)])),
    tombstones: (await store.tombstones(bankId, 10_000)).map((t) => ({ ...t, bankId: 'x' })),
  };
}

/** Record ids of a snapshot (facts, observations, entities, chunks, messages, memory items, revisions, tombstones). */
const RECORD_ID = /\b(?:fct|obs|ent|chk|msg|ref|rev|tmb)_[0-9a-f]{20,}\b/g;

/** A snapshot as a copy of the bank under `bankId` must look: every record id (wherever it appears) the copy's. */
function copied<T>(bankId: string, value: T): T {
  return JSON.parse(JSON.stringify(value).replace(RECORD_ID, (id) => copiedId(bankId, id))) as T;
}

/** A snapshot with its id-ordered sets in order again (the copy's ids sort differently), chunks of any bank. */
function sorted(s: Awaited<ReturnType<typeof snapshot>>): Awaited<ReturnType<typeof snapshot>> {
  return {
    ...s,
    chunks: s.chunks.map((cs) => cs.map((c) => ({ ...c, bankId: 'x' }))),
    facts: s.facts.map((f) => ({ ...f, entities: [...f.entities].sort() })),
    entities: [...s.entities].sort((a, b) => (a.id < b.id ? -1 : 1)),
    links: [...s.links].sort(),
    evidence: s.evidence.map((es) => [...es].sort((a, b) => (a.factId < b.factId ? -1 : 1))),
  };
}

async function recallIds(engine: Engine, bankId: string): Promise<string[][]> {
  const out: string[][] = [];
  for (const query of QUERIES) out.push((await engine.recall(bankId, { query, limit: 8 })).results.map((r) => r.id));
  return out;
}

describe('export and import', () => {
  let embedder: Embedder;
  let source: SqliteStore;
  let sourceThreads: SqliteThreadStore;
  let original: Awaited<ReturnType<typeof snapshot>>;
  let originalThreads: Awaited<ReturnType<typeof threadSnapshot>>;
  let originalRecall: string[][];
  let archive: string;

  before(async () => {
    embedder = (await createEmbedder(loadConfig({ CAIRN_CACHE_DIR: TEST_CACHE_DIR }).embed)).embedder;
    source = new SqliteStore({ dataDir: tempDir() });
    const engine = engineOn(source, embedder);
    await engine.createBank({
      id: BANK,
      name: 'Alice',
      mission: 'Track where Alice lives and works, and her family',
      config: { retainMission: 'people and places' },
    });
    const worker = new ConsolidationWorker({ store: source, embedder, consolidator: new OfflineConsolidator(embedder) });
    await engine.retain(BANK, { items: conversation });
    await worker.drain(BANK);
    await engine.retain(BANK, { items: later });
    await worker.drain(BANK);
    sourceThreads = new SqliteThreadStore(source.db);
    const memory = new ThreadMemory({
      store: sourceThreads,
      banks: source,
      bridge: async (bankId, items) => void (await engine.retain(bankId, { items, documentMode: 'append' })),
    });
    await buildThreads(memory, BANK);
    await worker.drain(BANK);
    // A deletion: its observation is blanked (no vector), a tombstone is written.
    const bob = (await source.listFacts(BANK, { limit: 100, offset: 0 })).facts.find((f) => /watercolou?r/i.test(f.text));
    assert.ok(bob, 'a fact about Bob was retained');
    await engine.memories.deleteFact(BANK, bob.id, 'not about Alice');
    await engine.memories.deleteDocument(BANK, 'chat-3', 'a chat about someone else');
    original = await snapshot(source, BANK);
    originalThreads = await threadSnapshot(sourceThreads, BANK);
    originalRecall = await recallIds(engine, BANK);
    archive = join(tempDir(), 'alice.jsonl');
    await exportBankToFile(source, BANK, archive, { embeddings: true, threads: sourceThreads });
  });

  after(async () => {
    await source.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('the bank built for the test has what an export must carry', () => {
    assert.ok(original.facts.length >= 8);
    assert.ok(original.observations.length >= 1, 'observations');
    assert.ok(
      original.evidence.some((e) => e.length >= 2),
      'an observation with several pieces of evidence',
    );
    assert.ok(
      original.history.some((h) => h.length >= 1),
      'history',
    );
    assert.ok(original.links.length >= 3, 'links');
    assert.ok(original.entities.length >= 3, 'entities');
    assert.ok(
      original.facts.some((f) => f.status === 'superseded'),
      'a superseded fact',
    );
    assert.ok(Object.keys(original.vectors).length >= 8, 'vectors');
    assert.deepEqual(
      [...new Set(original.tombstones.map((t) => t.kind))].sort(),
      ['document', 'fact'],
      'tombstones of a fact and of a document',
    );
    const t = originalThreads;
    assert.equal(t.threads.length, 3, 'threads');
    assert.ok(
      t.threads.some((x) => x.resourceId) && t.threads.some((x) => Object.keys(x.settings).length),
      'a resource and thread settings',
    );
    assert.ok(t.messages.flat().some((m) => m.name) && t.messages.flat().length >= 24, 'messages');
    const items = t.items.flat();
    assert.ok(
      items.some((i) => i.kind === 'reflection' && i.generation >= 1 && i.covers.length),
      'a reflection',
    );
    assert.ok(items.some((i) => i.status === 'archived') && items.some((i) => i.status === 'active'), 'archived and active items');
    assert.ok(
      items.some((i) => i.recordId.startsWith('resource:')),
      'memory of a resource',
    );
    assert.ok(t.workingMemory.filter(Boolean).length >= 2, 'working memory');
    assert.ok(
      t.unbridgedMessages.flat().length > 0 && t.unbridgedMessages.flat().length < t.messages.flat().length,
      'bridged and unbridged messages',
    );
    assert.ok(t.unbridgedItems.flat().length < items.filter((i) => i.kind === 'observation').length, 'bridged observations');
    assert.ok(
      t.watermarks.some((w) => w.observed > 0),
      'observed messages',
    );
  });

  test('exporting a bank that was deleted says when it was; one never made does not exist', async () => {
    const store = new SqliteStore({ dataDir: tempDir() });
    const threads = new SqliteThreadStore(store.db);
    try {
      await engineOn(store, embedder).createBank({ id: 'short-lived' });
      await store.deleteBank('short-lived');
      const first = (id: string) => exportBank(store, id, { threads }).next();
      await assert.rejects(first('short-lived'), /^CairnError: bank 'short-lived' was deleted at /);
      await assert.rejects(first('never-made'), /^CairnError: bank 'never-made' does not exist$/);
      // An archive already written under the name is left whole by an export that fails.
      const file = join(tempDir(), 'backup.jsonl');
      writeFileSync(file, readFileSync(archive));
      for (const id of ['short-lived', 'never-made'])
        await assert.rejects(exportBankToFile(store, id, file, { threads }), /short-lived' was deleted|never-made' does not exist/);
      // So does one that fails half-way (the store failing after the header was written).
      const failing = new Proxy(source, {
        get: (target, key) => (key === 'listFacts' ? () => Promise.reject(new Error('disk gone')) : Reflect.get(target, key, target)),
      });
      await assert.rejects(exportBankToFile(failing, BANK, file, { threads: sourceThreads }), /disk gone/);
      assert.deepEqual(readFileSync(file), readFileSync(archive));
      assert.deepEqual(readdirSync(dirname(file)), ['backup.jsonl'], 'no temporary file is left');
    } finally {
      store.close();
    }
  });

  test('the archive: a versioned header, one record per line, an end record with the counts', () => {
    const lines = readFileSync(archive, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      {
        format: lines[0].format,
        version: lines[0].version,
        embedder: lines[0].embedder,
        vectors: lines[0].vectors,
        bank: (lines[0].bank as { id: string }).id,
      },
      { format: 'cairn-export', version: 3, embedder: embedder.id, vectors: true, bank: BANK },
    );
    const types = new Set(lines.slice(1).map((l) => l.type));
    for (const t of [
      'entity',
      'document',
      'chunk',
      'fact',
      'observation',
      'link',
      'thread',
      'message',
      'memory',
      'working-memory',
      'tombstone',
      'end',
    ])
      assert.ok(types.has(t), t);
    const end = lines.at(-1) as { type: string; counts: Record<string, number> };
    assert.equal(end.type, 'end');
    assert.equal(end.counts.facts + end.counts.observations, original.facts.length);
    assert.deepEqual(
      [end.counts.threads, end.counts.messages, end.counts.memoryItems, end.counts.workingMemory, end.counts.tombstones],
      [3, originalThreads.messages.flat().length, originalThreads.items.flat().length, 2, original.tombstones.length],
    );
    const observation = lines.find((l) => l.type === 'observation') as { evidence: unknown[]; history: unknown[]; vector?: string };
    assert.ok(Array.isArray(observation.evidence) && Array.isArray(observation.history));
  });

  test('import into a fresh store reproduces the bank exactly, threads and tombstones too, and recall returns the same ids', async () => {
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const threads = new SqliteThreadStore(copy.db);
      const report = await importBank(copy, embedder, archive, { threads });
      assert.equal(report.bankId, BANK);
      assert.equal(report.reembedded, 0, 'the vectors were taken from the archive');
      assert.deepEqual(await snapshot(copy, BANK), original);
      assert.deepEqual(await threadSnapshot(threads, BANK), originalThreads, 'threads: ids, seq, times, generations, bridge state');
      assert.deepEqual(await recallIds(engineOn(copy, embedder), BANK), originalRecall);
    } finally {
      await copy.close();
    }
  });

  test('an archive without vectors is re-embedded on import, with the same result', async () => {
    const file = join(tempDir(), 'alice-novec.jsonl');
    await exportBankToFile(source, BANK, file, { threads: sourceThreads });
    assert.ok(!readFileSync(file, 'utf8').includes('"vector"'));
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const report = await importBank(copy, embedder, file, { bankId: BANK, threads: new SqliteThreadStore(copy.db) });
      assert.ok(report.reembedded >= original.facts.length - 1);
      const again = await snapshot(copy, BANK);
      assert.deepEqual({ ...again, vectors: {} }, { ...original, vectors: {} });
      for (const [id, v] of Object.entries(original.vectors))
        assert.ok(
          again.vectors[id].every((x, i) => Math.abs(x - v[i]) < 1e-6),
          id,
        );
      assert.deepEqual(await recallIds(engineOn(copy, embedder), BANK), originalRecall);
    } finally {
      await copy.close();
    }
  });

  test('an archive of another embedder is re-embedded with the importing one, under another bank id', async () => {
    const other = await TransformersEmbedder.load({ model: 'tiny-random-embed', modelsDir: MODEL_FIXTURES_DIR });
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const threads = new SqliteThreadStore(copy.db);
      const report = await importBank(copy, other, archive, { bankId: 'alice-copy', threads });
      assert.equal(report.embedder, other.id);
      assert.ok(report.reembedded > 0);
      const got = await snapshot(copy, 'alice-copy');
      assert.equal(got.bank?.embedder, other.id);
      const renamed = sorted(copied('alice-copy', original));
      assert.deepEqual(got.facts, renamed.facts, 'same facts under the new bank id, with ids of the copy');
      assert.deepEqual(got.links, renamed.links);
      assert.deepEqual(got.tombstones, renamed.tombstones);
      assert.deepEqual(await threadSnapshot(threads, 'alice-copy'), copied('alice-copy', originalThreads), 'same threads');
      assert.deepEqual(Object.keys(got.vectors).sort(), Object.keys(renamed.vectors).sort());
      assert.ok(Object.values(got.vectors).every((v) => v.length === other.dimensions));
      assert.ok((await engineOn(copy, other).recall('alice-copy', { query: 'Where does Alice live?' })).results.length > 0);
    } finally {
      await copy.close();
      await other.dispose();
    }
  });

  test('broken archives are refused and leave no half-imported bank; an existing bank is never overwritten', async () => {
    const lines: string[] = [];
    for await (const l of exportBank(source, BANK, { threads: sourceThreads })) lines.push(l);
    const copy = new SqliteStore({ dataDir: tempDir() });
    const threads = new SqliteThreadStore(copy.db);
    try {
      const truncated = join(tempDir(), 'truncated.jsonl');
      writeFileSync(truncated, lines.slice(0, -1).join('\n'));
      await assert.rejects(importBank(copy, embedder, truncated, { threads }), /truncated/);
      assert.equal(await copy.getBank(BANK), null, 'the half-imported bank was removed');
      assert.deepEqual(await threads.listThreads(BANK, { limit: 10, offset: 0 }), [], 'its threads too');
      assert.equal((await threads.countMessages(BANK, 'trip')).count, 0);

      const newer = join(tempDir(), 'newer.jsonl');
      writeFileSync(newer, [JSON.stringify({ ...JSON.parse(lines[0]), version: 99 }), ...lines.slice(1)].join('\n'));
      await assert.rejects(importBank(copy, embedder, newer, { threads }), /version 99/);
      await assert.rejects(
        importBank(
          copy,
          embedder,
          (async function* () {
            yield '{"hello": 1}';
          })(),
          { threads },
        ),
        /not a Cairn export/,
      );

      await importBank(
        copy,
        embedder,
        (async function* () {
          yield* lines;
        })(),
        { threads },
      );
      await assert.rejects(importBank(copy, embedder, archive, { threads }), /already exists/);
      assert.equal((await copy.listFacts(BANK, { limit: 1000, offset: 0, includeSuperseded: true })).total, original.facts.length);
      assert.equal((await threads.listThreads(BANK, { limit: 10, offset: 0 })).length, 3);
    } finally {
      await copy.close();
    }
  });

  test("into a store whose other banks' threads use the same message numbers, every thread keeps its own", async () => {
    const file = join(tempDir(), 'alice-pages.jsonl');
    await exportBankToFile(source, BANK, file, { threads: sourceThreads, pageSize: 5 });
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const threads = new SqliteThreadStore(copy.db);
      const engine = engineOn(copy, embedder);
      await engine.createBank({ id: 'other' });
      const memory = new ThreadMemory({ store: threads, banks: copy });
      // Message numbers count within a thread: another bank's thread holding the same numbers changes nothing.
      const seqs = originalThreads.messages.flat().map((m) => m.seq);
      const middle = originalThreads.messages[0][Math.floor(originalThreads.messages[0].length / 2)];
      await memory.putThread('other', 'chat', {});
      await threads.restoreMessages(
        'other',
        'chat',
        [{ ...middle, id: 'msg-other-1', bankId: 'other', threadId: 'chat', bridgedAt: null }],
        false,
      );
      await importBank(copy, embedder, file, { threads, batchSize: 5 });
      const got = await threadSnapshot(threads, BANK);
      assert.deepEqual(
        got.messages.flat().map((m) => m.seq),
        seqs,
        'every message kept its number',
      );
      assert.deepEqual(bySeqIds(got), bySeqIds(originalThreads));
      assert.ok(bySeqIds(got).messages.every((t) => t.ascending));
      assert.deepEqual(
        (await threads.listMessages('other', 'chat')).map((m) => [m.id, m.seq]),
        [['msg-other-1', middle.seq]],
        'the other bank is untouched',
      );
      // The imported thread goes on: a new message comes after the imported ones of its thread.
      const before = (await threads.listMessages(BANK, 'u1-b')).map((m) => m.seq);
      const next = await memory.append(BANK, 'u1-b', { messages: [{ role: 'user', content: 'One more thing.' }] });
      assert.equal(next.messages[0].seq, Math.max(0, ...before) + 1);
    } finally {
      await copy.close();
    }
  });

  test('an archive of format version 1 (no threads or tombstones) is still read', async () => {
    const fixture = join(import.meta.dirname, 'fixtures', 'export-v1.jsonl');
    const records = readFileSync(fixture, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { version?: number; type?: string; fact?: { id: string; text: string } });
    assert.equal(records[0].version, 1);
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const threads = new SqliteThreadStore(copy.db);
      const report = await importBank(copy, embedder, fixture, { threads });
      assert.equal(report.bankId, 'legacy');
      assert.equal(report.counts.threads, 0);
      const facts = (await copy.listFacts('legacy', { limit: 100, offset: 0, includeSuperseded: true })).facts;
      assert.deepEqual(
        facts.map((f) => [f.id, f.text]),
        records.filter((r) => r.type === 'fact').map((r) => [r.fact?.id, r.fact?.text]),
      );
      assert.deepEqual(await threads.listThreads('legacy', { limit: 10, offset: 0 }), []);
      // Written before sessions: each named document is one, as the store's own upgrade makes them.
      const documents = [...new Set(facts.flatMap((f) => (f.source ? [f.source.documentId] : [])))];
      assert.deepEqual((await copy.sessions('legacy')).map((s) => s.id).sort(), documents.sort());
      assert.ok(facts.every((f) => !f.source || f.source.session === f.source.documentId));
      assert.ok((await engineOn(copy, embedder).recall('legacy', { query: 'Where did Dana open a bakery?' })).results.length > 0);
    } finally {
      await copy.close();
    }
  });
  test('a bank copied under another id into the store that holds it gets ids of its own; each survives the other', async () => {
    const store = new SqliteStore({ dataDir: tempDir() });
    try {
      const threads = new SqliteThreadStore(store.db);
      const engine = engineOn(store, embedder);
      // Recall in the copy answers as the same copy alone in a fresh store does, and finds what the original finds
      // (the fusion breaks ties between equal scores by id, and the copy's ids order differently).
      const alone = new SqliteStore({ dataDir: tempDir() });
      await importBank(alone, embedder, archive, { bankId: 'alice-2', threads: new SqliteThreadStore(alone.db) });
      const aloneRecall = await recallIds(engineOn(alone, embedder), 'alice-2');
      await alone.close();
      const sameRecall = async (engine: Engine, bankId: string): Promise<void> => {
        const got = await recallIds(engine, bankId);
        assert.deepEqual(got, aloneRecall);
        copied(bankId, originalRecall).forEach((ids, q) => {
          assert.equal(got[q][0], ids[0], QUERIES[q]);
          assert.ok(got[q].filter((id) => ids.includes(id)).length >= ids.length - 2, QUERIES[q]);
        });
      };
      await importBank(store, embedder, archive, { threads });
      const report = await importBank(store, embedder, archive, { bankId: 'alice-2', threads });
      assert.equal(report.reembedded, 0, 'the vectors were taken from the archive');
      const renamed = sorted(copied('alice-2', original));
      assert.deepEqual(sorted(await snapshot(store, 'alice-2')), renamed);
      assert.deepEqual(await threadSnapshot(threads, 'alice-2'), copied('alice-2', originalThreads));
      await sameRecall(engine, 'alice-2');
      const originalIds = new Set(JSON.stringify([original, originalThreads]).match(RECORD_ID));
      const copyIds = JSON.stringify([renamed, copied('alice-2', originalThreads)]).match(RECORD_ID) ?? [];
      assert.ok(copyIds.length > 50 && copyIds.every((id) => !originalIds.has(id)), 'no record id is shared');

      // Deleting a copy leaves the original and the other copy whole; deleting the original leaves the copy whole.
      await importBank(store, embedder, archive, { bankId: 'alice-3', threads });
      await engine.deleteBank('alice-3');
      await threads.deleteBank('alice-3');
      assert.deepEqual(await snapshot(store, BANK), original);
      assert.deepEqual(await threadSnapshot(threads, BANK), originalThreads);
      assert.deepEqual(sorted(await snapshot(store, 'alice-2')), renamed);
      await engine.deleteBank(BANK);
      await threads.deleteBank(BANK);
      assert.deepEqual(sorted(await snapshot(store, 'alice-2')), renamed);
      assert.deepEqual(await threadSnapshot(threads, 'alice-2'), copied('alice-2', originalThreads));
      await sameRecall(engine, 'alice-2');
    } finally {
      await store.close();
    }
  });

  test('every field is checked before anything is written: a bad one is named with its line and record type', async () => {
    const lines = readFileSync(archive, 'utf8').trim().split('\n');
    const at = (type: string, has?: (r: Record<string, unknown>) => boolean): number =>
      lines.findIndex((l) => {
        const r = JSON.parse(l) as Record<string, unknown>;
        return r.type === type && (!has || has(r));
      });
    /** The archive with line i (0-based) changed by `edit`, or removed when `edit` is null, written to a file. */
    // biome-ignore lint/suspicious/noExplicitAny: the test edits archive lines of every record type
    type Line = Record<string, any>;
    const tampered = (i: number, edit: ((r: Line) => void) | null): string => {
      const out = [...lines];
      if (edit === null) out.splice(i, 1);
      else {
        const r = JSON.parse(out[i]) as Line;
        edit(r);
        out[i] = JSON.stringify(r);
      }
      const file = join(tempDir(), 'tampered.jsonl');
      writeFileSync(file, `${out.join('\n')}\n`);
      return file;
    };
    const store = new SqliteStore({ dataDir: tempDir() });
    let created = 0;
    const watched = new Proxy(store, {
      get(target, key) {
        if (key === 'createBank') created++;
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const threads = new SqliteThreadStore(store.db);
    const refused = async (file: string, expected: RegExp): Promise<void> => {
      await assert.rejects(importBank(watched, embedder, file, { threads }), expected);
      assert.equal(created, 0, 'nothing was written');
      assert.equal(await store.getBank(BANK), null);
    };
    try {
      const fact = at('fact');
      const n = fact + 1;
      for (const [field, value] of [
        ['mentionedAt', '2024-02-30'],
        ['createdAt', 'yesterday'],
        ['validFrom', 'not a date'],
      ])
        await refused(
          tampered(fact, (r) => {
            r.fact[field] = value;
          }),
          new RegExp(`line ${n} \\(fact record\\): fact\\.${field}: '${value}' is not a valid ISO 8601 time.*import again`),
        );
      await refused(
        tampered(fact, (r) => {
          r.fact.text = null;
        }),
        new RegExp(`line ${n} \\(fact record\\): fact\\.text: .*expected string`),
      );
      await refused(
        tampered(fact, (r) => {
          r.fact.kind = 'bogus';
        }),
        new RegExp(`line ${n} \\(fact record\\): fact\\.kind: `),
      );
      const message = at('message');
      await refused(
        tampered(message, (r) => {
          r.message.role = 'hacker';
        }),
        new RegExp(`line ${message + 1} \\(message record\\): message\\.role: `),
      );
      const memory = at('memory');
      await refused(
        tampered(memory, (r) => {
          r.item.generation = -1;
        }),
        new RegExp(`line ${memory + 1} \\(memory record\\): item\\.generation: `),
      );

      // References to records the archive does not hold: the line, the field and the missing id.
      const chunkId = (JSON.parse(lines[fact]) as { fact: Fact }).fact.source?.chunkId as string;
      const chunk = at('chunk', (r) => (r.chunk as Chunk).id === chunkId);
      await refused(
        tampered(chunk, null),
        new RegExp(`line ${n - 1} \\(fact record\\): fact\\.source\\.chunkId: chunk '${chunkId}' is not in the archive`),
      );
      const entityId = (JSON.parse(lines[fact]) as { fact: Fact }).fact.entities[0];
      await refused(
        tampered(
          at('entity', (r) => (r.entity as Entity).id === entityId),
          null,
        ),
        new RegExp(`\\(fact record\\): fact\\.entities\\[\\d+\\]: entity '${entityId}' is not in the archive`),
      );
      const link = at('link');
      const from = (JSON.parse(lines[link]) as { link: { from: string } }).link.from;
      await refused(
        tampered(
          at('fact', (r) => (r.fact as Fact).id === from),
          (r) => {
            r.fact.id = 'fct_changed';
          },
        ),
        new RegExp(`line ${link + 1} \\(link record\\): link\\.from: fact '${from}' is not in the archive`),
      );
      const observation = at('observation', (r) => (r.evidence as unknown[]).length > 0);
      const evidenceOf = (JSON.parse(lines[observation]) as { evidence: Array<{ factId: string }> }).evidence[0].factId;
      await refused(
        tampered(observation, (r) => {
          r.evidence[0].factId = 'fct_nowhere';
        }),
        new RegExp(`line ${observation + 1} \\(observation record\\): evidence\\[0\\]\\.factId: fact 'fct_nowhere' is not in the archive`),
      );
      assert.ok(evidenceOf);
      await refused(
        tampered(fact, (r) => {
          r.fact.supersededBy = 'fct_nowhere';
        }),
        new RegExp(`line ${n} \\(fact record\\): fact\\.supersededBy: fact 'fct_nowhere' is not in the archive`),
      );
      // The header's bank too.
      await refused(
        tampered(0, (r) => {
          r.bank.createdAt = 'soon';
        }),
        /line 1 \(header record\): createdAt: 'soon' is not a valid ISO 8601 time/,
      );
    } finally {
      await store.close();
    }
  });

  test('times are stored in the canonical form whatever ISO 8601 form the archive gives them in', async () => {
    const lines = readFileSync(archive, 'utf8').trim().split('\n');
    const i = lines.findIndex((l) => (JSON.parse(l) as { type: string }).type === 'fact');
    const r = JSON.parse(lines[i]) as { fact: Fact };
    r.fact.mentionedAt = '2024-06-01T14:00:00+02:00';
    r.fact.validFrom = '2024-06-01';
    lines[i] = JSON.stringify(r);
    const store = new SqliteStore({ dataDir: tempDir() });
    try {
      await importBank(
        store,
        embedder,
        (async function* () {
          yield* lines;
        })(),
        { threads: new SqliteThreadStore(store.db) },
      );
      const [got] = await store.getFacts(BANK, [r.fact.id]);
      assert.equal(got.mentionedAt, '2024-06-01T12:00:00.000Z');
      assert.equal(got.validFrom, '2024-06-01T00:00:00.000Z');
    } finally {
      await store.close();
    }
  });
});
