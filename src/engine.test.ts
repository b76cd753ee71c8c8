// The engine's answers when a bank is deleted under a request in flight.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { TEST_GLOVE_CACHE_FILE } from '../test/support/embed.ts';
import { CairnError } from './core/errors.ts';
import { GloveEmbedder } from './embed/glove.ts';
import type { Embedder } from './embed/ports.ts';
import { Engine } from './engine.ts';
import { OfflineAnswerer } from './reflect/offline-answerer.ts';
import { OfflineExtractor } from './retain/offline-extractor.ts';
import { SqliteStore } from './store/sqlite/store.ts';

let embedder: Embedder;
before(async () => {
  embedder = await GloveEmbedder.open({ cacheFile: TEST_GLOVE_CACHE_FILE });
});

/** Runs `ask` against a bank that is deleted (as a DELETE from another client would) when its keyword arm first reads,
 * and checks it fails with the bank's 404 quoting the deletion's reason. */
async function deletedWhileAsked(ask: (engine: Engine) => Promise<unknown>): Promise<void> {
  const store = new SqliteStore({ file: ':memory:' });
  const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor() });
  try {
    await engine.createBank({ id: 'b' });
    await engine.retain('b', { items: [{ content: 'Mia moved the staging cluster to Frankfurt in May.' }] });
    const search = store.keywords.searchFacts.bind(store.keywords);
    store.keywords.searchFacts = async (...args) => {
      await engine.deleteBank('b', 'cleanup by the user');
      return search(...args);
    };
    await assert.rejects(
      ask(engine),
      (e: unknown) => e instanceof CairnError && e.code === 'not_found' && /cleanup by the user/.test(e.message),
    );
  } finally {
    await engine.close();
    await store.close();
  }
}

test('a recall whose bank is deleted while it runs answers 404 (when and why), not an empty list', () =>
  deletedWhileAsked((engine) => engine.recall('b', { query: 'Where is the staging cluster?' })));

test('a reflect whose bank is deleted while it runs answers 404, not "memory holds nothing relevant"', () =>
  deletedWhileAsked((engine) => engine.reflect.answer('b', { query: 'Where is the staging cluster?' }, () => new OfflineAnswerer())));
