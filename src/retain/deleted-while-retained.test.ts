// A long item is written in batches of chunks. When its document is deleted between two batches (the user deleting
// it while the retain runs), the retain must stop with a conflict rather than write the rest: the later batches
// used to bring the document back without its start, under the hash of the whole content, so retaining the same
// text again was skipped as unchanged and the missing part never came back.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { TEST_GLOVE_CACHE_FILE } from '../../test/support/embed.ts';
import { GatedStore } from '../../test/support/gated-store.ts';
import { until } from '../../test/support/poll.ts';
import { CairnError } from '../core/errors.ts';
import { GloveEmbedder } from '../embed/glove.ts';
import type { Embedder } from '../embed/ports.ts';
import { Engine } from '../engine.ts';
import type { ItemWrite } from '../store/ports.ts';
import { SqliteStore } from '../store/sqlite/store.ts';
import { OfflineExtractor } from './offline-extractor.ts';

let embedder: Embedder;
before(async () => {
  embedder = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
});

/** A store that deletes the document right after the first batch of it is written, as a user's DELETE would. */
class DeletingStore extends SqliteStore {
  deleted = false;
  override async writeItem(w: ItemWrite): Promise<void> {
    await super.writeItem(w);
    if (w.document.id === 'long' && !this.deleted) {
      this.deleted = true;
      assert.ok(await this.deleteDocument(w.bankId, 'long', 'user request'));
    }
  }
}

const longText = Array.from(
  { length: 1500 },
  (_, i) => `Paragraph ${i}: the team moved service number ${i} to the new cluster in Frankfurt and measured its latency.`,
).join('\n\n');

test('a document deleted while its long retain runs stays deleted; retaining it again stores it whole', async () => {
  const store = new DeletingStore({ file: ':memory:' });
  const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor() });
  try {
    await engine.createBank({ id: 'b' });
    await assert.rejects(
      engine.retain('b', { items: [{ content: longText, documentId: 'long', timestamp: '2024-05-01T10:00:00Z' }] }),
      (e: unknown) => e instanceof CairnError && e.code === 'conflict' && /deleted while it was being retained/.test(e.message),
    );
    assert.ok(store.deleted, 'the document was deleted between two batches of its chunks');
    assert.equal(await store.getDocument('b', 'long'), null, 'the rest of the item did not bring the document back');
    assert.deepEqual(await store.listChunks('b', 'long'), []);
    assert.equal((await store.listFacts('b', { limit: 10, offset: 0, documentId: 'long' })).total, 0);
    // Retained again, the whole of it is stored (nothing is skipped as unchanged).
    const again = await engine.retain('b', { items: [{ content: longText, documentId: 'long', timestamp: '2024-05-01T10:00:00Z' }] });
    assert.equal(again.result?.documentsUnchanged, 0);
    const chunks = await store.listChunks('b', 'long');
    assert.ok(chunks.length > 64, `more chunks (${chunks.length}) than one batch writes`);
    assert.deepEqual(
      chunks.map((c) => c.index),
      chunks.map((_, i) => i),
      'every chunk, from the first',
    );
  } finally {
    await store.close();
  }
});

/** Runs `use` on an engine over the store, then closes both (opening the store's gate first, when it has one). */
async function onEngine<S extends SqliteStore>(store: S, use: (engine: Engine) => Promise<void>): Promise<void> {
  const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor() });
  try {
    await use(engine);
  } finally {
    if (store instanceof GatedStore) store.release();
    await engine.close();
    await store.close();
  }
}

/** The error a delete answers: its code, and text its message names. */
const failsWith =
  (code: string, text = '') =>
  (e: unknown): boolean =>
    e instanceof CairnError && e.code === code && e.message.includes(text);

test('deleting a document a retain in progress has not written yet is refused (409) instead of a 404 it would undo', async () => {
  const store = new GatedStore({ file: ':memory:' });
  await onEngine(store, async (engine) => {
    await engine.createBank({ id: 'b' });
    const item = { content: 'Mia moved the staging cluster to Frankfurt in May.', documentId: 'doc-1' };
    const { operation } = await engine.retain('b', { items: [item] }, { async: true });
    await until('the retain to reach its first write', () => store.waiting);
    await assert.rejects(engine.memories.deleteDocument('b', 'doc-1', 'user request'), failsWith('conflict', operation.id));
    // Another bank's document of the same id is not held up.
    await engine.createBank({ id: 'other' });
    await assert.rejects(engine.memories.deleteDocument('other', 'doc-1', 'x'), failsWith('not_found'));
    store.release();
    await until('the retain to finish', async () => (await engine.getOperation(operation.id, 'b')).status === 'succeeded');
    const deleted = await engine.memories.deleteDocument('b', 'doc-1', 'user request');
    assert.ok(deleted.factIds.length > 0, 'its facts went with it');
    assert.equal(await store.getDocument('b', 'doc-1'), null, 'deleted once its retain had finished');
  });
});

test("a retain queued by another process (its input in the store) holds its documents' deletes too", async () => {
  const store = new SqliteStore({ file: ':memory:' });
  await onEngine(store, async (engine) => {
    await engine.createBank({ id: 'b' });
    const now = new Date().toISOString();
    await store.createOperation({
      id: 'op-elsewhere',
      bankId: 'b',
      kind: 'retain',
      status: 'queued',
      progress: { done: 0, total: 1 },
      input: { items: [{ content: 'Queued elsewhere.', documentId: 'doc-2' }], documentMode: 'replace' },
      result: null,
      error: null,
      createdAt: now,
      updatedAt: now,
      owner: 'another-process',
    });
    await assert.rejects(engine.memories.deleteDocument('b', 'doc-2', 'user request'), failsWith('conflict', 'op-elsewhere'));
    await assert.rejects(engine.memories.deleteDocument('b', 'doc-3', 'x'), failsWith('not_found'));
  });
});

test("a retain failed by its bank's deletion holds no delete in the bank created again under that id", async () => {
  const store = new GatedStore({ file: ':memory:' });
  await onEngine(store, async (engine) => {
    await engine.createBank({ id: 'b' });
    const { operation } = await engine.retain('b', { items: [{ content: 'Old bank, old note.', documentId: 'doc-1' }] }, { async: true });
    await until('the retain to reach its first write', () => store.waiting);
    await engine.deleteBank('b', 'start over');
    assert.equal((await store.getOperation(operation.id))?.status, 'failed');
    await engine.createBank({ id: 'b' });
    // The stale run still waits at its write: it has not noticed, but its operation is over.
    await assert.rejects(engine.memories.deleteDocument('b', 'doc-1', 'x'), failsWith('not_found'));
  });
});
