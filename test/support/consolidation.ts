// Test support for consolidation: a real engine (embedded SQLite store in a temp dir, offline GloVe embedder,
// offline extractor) with consolidation attached, served over real HTTP with the consolidation and audit routes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/api/app.ts';
import { coreRoutes } from '../../src/api/routes/index.ts';
import { listen } from './http.ts';
import { auditRoutes } from '../../src/api/routes/audit.ts';
import { consolidationRoutes } from '../../src/api/routes/consolidation.ts';
import { attachConsolidation, type AttachOptions } from '../../src/consolidate/attach.ts';
import type { ConsolidationWorker } from '../../src/consolidate/worker.ts';
import { GloveEmbedder } from '../../src/embed/glove.ts';
import { Engine } from '../../src/engine.ts';
import { OfflineExtractor } from '../../src/retain/offline-extractor.ts';
import { SqliteStore } from '../../src/store/sqlite/store.ts';
import { TEST_CACHE_DIR } from './server.ts';

export interface TestEngine {
  engine: Engine;
  store: SqliteStore;
  embedder: GloveEmbedder;
  worker: ConsolidationWorker;
  dataDir: string;
  url: string;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Stops the worker and closes the store, keeping the data directory. */
  stop(): Promise<void>;
  /** Stops and deletes the data directory. */
  close(): Promise<void>;
}

export const gloveCacheFile = (): string => join(TEST_CACHE_DIR, 'glove-100d.bin');

export async function openEngine(options: { dataDir?: string; attach?: AttachOptions } = {}): Promise<TestEngine> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cairn-consolidation-'));
  const store = new SqliteStore({ dataDir });
  const embedder = await GloveEmbedder.open({ cacheFile: gloveCacheFile() });
  const engine = new Engine({ store, embedder, reranker: null, extractor: new OfflineExtractor() });
  const consolidation = attachConsolidation(engine, { store, embedder }, options.attach);
  const { worker } = consolidation;
  const app = createApp(engine, { routes: [...coreRoutes(engine), consolidationRoutes(engine, consolidation), auditRoutes(engine)] });
  const http = await listen(app);
  const stop = async (): Promise<void> => {
    await http.close();
    await worker.stop();
    await engine.close();
  };
  return {
    engine,
    store,
    embedder,
    worker,
    dataDir,
    url: http.url,
    call: http.call,
    stop,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
