// Export then import reproduces a bank exactly: a bank built by the real retain pipeline and consolidated by the
// real worker (observations with evidence and history, a supersession, a deletion's blanked observation) is
// exported, imported into a fresh embedded store, and compared record by record; recall on the copy returns the
// same ids. Also: an archive without vectors is re-embedded, an archive of another embedder is re-embedded with
// the importing one, and broken archives are refused without leaving a half-imported bank.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OfflineConsolidator } from '../consolidate/offline.ts';
import { ConsolidationWorker } from '../consolidate/worker.ts';
import type { Embedder } from '../embed/ports.ts';
import { createEmbedder } from '../embed/select.ts';
import { MODEL_FIXTURES_DIR, TEST_CACHE_DIR } from '../embed/testing.ts';
import { TransformersEmbedder } from '../embed/transformers.ts';
import { Engine } from '../engine.ts';
import { OfflineExtractor } from '../retain/offline-extractor.ts';
import type { MemoryStore } from '../store/ports.ts';
import { SqliteStore } from '../store/sqlite/store.ts';
import { exportBank, exportBankToFile } from './export.ts';
import { importBank } from './import.ts';

const BANK = 'alice';
const QUERIES = ['Where does Alice live?', 'What instrument does Anna play?', 'Who is Miso?', 'What did Alice do in June 2023?', 'robotics startup'];

const conversation = [
  { content: 'I moved to Berlin to join a robotics startup.', speaker: 'Alice', timestamp: '2023-06-14T10:00:00Z', documentId: 'chat-1', tags: ['life'] },
  { content: 'My sister Anna is a violinist in Vienna.', speaker: 'Alice', timestamp: '2023-06-14T10:05:00Z', documentId: 'chat-1', tags: ['family'] },
  { content: 'Anna plays the violin every evening.', speaker: 'Alice', timestamp: '2023-06-14T10:06:00Z', documentId: 'chat-1', tags: ['family'] },
  { content: 'I adopted a grey cat called Miso.', speaker: 'Alice', timestamp: '2024-01-20T10:00:00Z', documentId: 'chat-2' },
  { content: 'Miso likes to sleep on my keyboard.', speaker: 'Alice', timestamp: '2024-01-21T10:00:00Z', documentId: 'chat-2' },
  { content: 'Bob started learning to paint watercolours.', speaker: 'Carol', timestamp: '2024-02-11T10:00:00Z', documentId: 'chat-3' },
];
const later = [
  { content: 'I moved to Munich last month.', speaker: 'Alice', timestamp: '2024-05-02T10:00:00Z', documentId: 'chat-4', tags: ['life'] },
  { content: 'I work at a robotics startup in Munich now.', speaker: 'Alice', timestamp: '2024-05-02T10:01:00Z', documentId: 'chat-4', tags: ['life'] },
];

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
  const vectors = await store.getVectors(bankId, facts.map((f) => f.id));
  return {
    bank: bank && { name: bank.name, mission: bank.mission, config: bank.config, embedder: bank.embedder, createdAt: bank.createdAt },
    documents: documents.map((d) => ({ id: d.id, contentHash: d.contentHash, metadata: d.metadata, tags: d.tags, createdAt: d.createdAt })),
    chunks: await Promise.all(documents.map((d) => store.listChunks(bankId, d.id))),
    facts: facts.map((f) => ({ ...f, bankId: 'x', entities: [...f.entities].sort() })),
    entities: await store.listEntities(bankId, 10_000, 0).then((es) => es.map((e) => ({ ...e, bankId: 'x' }))),
    links: (await store.listLinks(bankId, 10_000, 0)).map((l) => `${l.from}>${l.to}:${l.type}:${l.weight}`).sort(),
    observations: await store.getObservations(bankId, observationIds).then((os) => os.map((o) => ({ id: o.id, text: o.text, proofCount: o.proofCount }))),
    evidence: await Promise.all(observationIds.map((id) => store.evidenceOf(bankId, id))),
    history: await Promise.all(observationIds.map((id) => store.historyOf(bankId, id))),
    vectors: Object.fromEntries([...vectors].map(([id, v]) => [id, Array.from(v)])),
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
  let original: Awaited<ReturnType<typeof snapshot>>;
  let originalRecall: string[][];
  let archive: string;

  before(async () => {
    embedder = (await createEmbedder({ CAIRN_CACHE_DIR: TEST_CACHE_DIR })).embedder;
    source = new SqliteStore({ dataDir: tempDir() });
    const engine = engineOn(source, embedder);
    await engine.createBank({ id: BANK, name: 'Alice', mission: 'Track where Alice lives and works, and her family', config: { retainMission: 'people and places' } });
    const worker = new ConsolidationWorker({ store: source, embedder, consolidator: new OfflineConsolidator(embedder) });
    await engine.retain(BANK, { items: conversation });
    await worker.drain(BANK);
    await engine.retain(BANK, { items: later });
    await worker.drain(BANK);
    // A deletion: its observation is blanked (no vector), a tombstone is written.
    const bob = (await source.listFacts(BANK, { limit: 100, offset: 0 })).facts.find((f) => /watercolou?r/i.test(f.text));
    assert.ok(bob, 'a fact about Bob was retained');
    await engine.deleteFact(BANK, bob.id, 'not about Alice');
    original = await snapshot(source, BANK);
    originalRecall = await recallIds(engine, BANK);
    archive = join(tempDir(), 'alice.jsonl');
    await exportBankToFile(source, BANK, archive, { embeddings: true });
  });

  after(async () => {
    await source.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('the bank built for the test has what an export must carry', () => {
    assert.ok(original.facts.length >= 8);
    assert.ok(original.observations.length >= 1, 'observations');
    assert.ok(original.evidence.some((e) => e.length >= 2), 'an observation with several pieces of evidence');
    assert.ok(original.history.some((h) => h.length >= 1), 'history');
    assert.ok(original.links.length >= 3, 'links');
    assert.ok(original.entities.length >= 3, 'entities');
    assert.ok(original.facts.some((f) => f.status === 'superseded'), 'a superseded fact');
    assert.ok(Object.keys(original.vectors).length >= 8, 'vectors');
  });

  test('the archive: a versioned header, one record per line, an end record with the counts', () => {
    const lines = readFileSync(archive, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      { format: lines[0].format, version: lines[0].version, embedder: lines[0].embedder, vectors: lines[0].vectors, bank: (lines[0].bank as { id: string }).id },
      { format: 'cairn-export', version: 1, embedder: embedder.id, vectors: true, bank: BANK },
    );
    const types = new Set(lines.slice(1).map((l) => l.type));
    for (const t of ['entity', 'document', 'chunk', 'fact', 'observation', 'link', 'end']) assert.ok(types.has(t), t);
    const end = lines.at(-1) as { type: string; counts: Record<string, number> };
    assert.equal(end.type, 'end');
    assert.equal(end.counts.facts + end.counts.observations, original.facts.length);
    const observation = lines.find((l) => l.type === 'observation') as { evidence: unknown[]; history: unknown[]; vector?: string };
    assert.ok(Array.isArray(observation.evidence) && Array.isArray(observation.history));
  });

  test('import into a fresh store reproduces the bank exactly, and recall returns the same ids', async () => {
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const report = await importBank(copy, embedder, archive);
      assert.equal(report.bankId, BANK);
      assert.equal(report.reembedded, 0, 'the vectors were taken from the archive');
      assert.deepEqual(await snapshot(copy, BANK), original);
      assert.deepEqual(await recallIds(engineOn(copy, embedder), BANK), originalRecall);
    } finally {
      await copy.close();
    }
  });

  test('an archive without vectors is re-embedded on import, with the same result', async () => {
    const file = join(tempDir(), 'alice-novec.jsonl');
    await exportBankToFile(source, BANK, file);
    assert.ok(!readFileSync(file, 'utf8').includes('"vector"'));
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const report = await importBank(copy, embedder, file, { bankId: BANK });
      assert.ok(report.reembedded >= original.facts.length - 1);
      const again = await snapshot(copy, BANK);
      assert.deepEqual({ ...again, vectors: {} }, { ...original, vectors: {} });
      for (const [id, v] of Object.entries(original.vectors)) assert.ok(again.vectors[id].every((x, i) => Math.abs(x - v[i]) < 1e-6), id);
      assert.deepEqual(await recallIds(engineOn(copy, embedder), BANK), originalRecall);
    } finally {
      await copy.close();
    }
  });

  test('an archive of another embedder is re-embedded with the importing one, under another bank id', async () => {
    const other = await TransformersEmbedder.load({ model: 'tiny-random-embed', modelsDir: MODEL_FIXTURES_DIR });
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const report = await importBank(copy, other, archive, { bankId: 'alice-copy' });
      assert.equal(report.embedder, other.id);
      assert.ok(report.reembedded > 0);
      const got = await snapshot(copy, 'alice-copy');
      assert.equal(got.bank?.embedder, other.id);
      assert.deepEqual(got.facts, original.facts, 'same facts under the new bank id');
      assert.deepEqual(got.links, original.links);
      assert.deepEqual(Object.keys(got.vectors).sort(), Object.keys(original.vectors).sort());
      assert.ok(Object.values(got.vectors).every((v) => v.length === other.dimensions));
      assert.ok((await engineOn(copy, other).recall('alice-copy', { query: 'Where does Alice live?' })).results.length > 0);
    } finally {
      await copy.close();
      await other.dispose();
    }
  });

  test('broken archives are refused and leave no half-imported bank; an existing bank is never overwritten', async () => {
    const lines: string[] = [];
    for await (const l of exportBank(source, BANK, {})) lines.push(l);
    const copy = new SqliteStore({ dataDir: tempDir() });
    try {
      const truncated = join(tempDir(), 'truncated.jsonl');
      writeFileSync(truncated, lines.slice(0, -3).join('\n'));
      await assert.rejects(importBank(copy, embedder, truncated), /truncated/);
      assert.equal(await copy.getBank(BANK), null, 'the half-imported bank was removed');

      const newer = join(tempDir(), 'newer.jsonl');
      writeFileSync(newer, [JSON.stringify({ ...JSON.parse(lines[0]), version: 99 }), ...lines.slice(1)].join('\n'));
      await assert.rejects(importBank(copy, embedder, newer), /version 99/);
      await assert.rejects(importBank(copy, embedder, (async function* () { yield '{"hello": 1}'; })()), /not a Cairn export/);

      await importBank(copy, embedder, (async function* () { yield* lines; })());
      await assert.rejects(importBank(copy, embedder, archive), /already exists/);
      assert.equal((await copy.listFacts(BANK, { limit: 1000, offset: 0, includeSuperseded: true })).total, original.facts.length);
    } finally {
      await copy.close();
    }
  });
});
