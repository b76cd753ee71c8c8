// Test support for consolidation: a real engine (embedded SQLite store in a temp dir, offline GloVe embedder,
// offline extractor) with consolidation attached, served over real HTTP with the consolidation and audit routes.
import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/api/app.ts';
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
  const worker = attachConsolidation(engine, options.attach);
  const app = createApp(engine, { extraRoutes: [consolidationRoutes(engine, worker), auditRoutes(engine, worker)] });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = async (): Promise<void> => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await worker.stop();
    await engine.close();
  };
  return {
    engine,
    store,
    worker,
    dataDir,
    url,
    async call<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(url + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    stop,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
