// Test support: a real Cairn (embedded store in a temp dir, offline GloVe embedder) behind a real HTTP
// server on 127.0.0.1, plus a small JSON client for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/api/app.ts';
import { listen } from './http.ts';
import { compose } from '../../src/compose.ts';
import { loadConfig } from '../../src/config/index.ts';
import type { Engine } from '../../src/engine.ts';
import type { ConsolidationWorker } from '../../src/consolidate/worker.ts';
import type { MemoryStore } from '../../src/store/ports.ts';
import { TEST_CACHE_DIR } from './embed.ts';

export { TEST_CACHE_DIR };

export interface TestServer {
  url: string;
  engine: Engine;
  /** The store beneath the engine, for tests that look at what it holds. */
  store: MemoryStore;
  worker: ConsolidationWorker;
  dataDir: string;
  call<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  /** Stops the server and closes the store, keeping the data directory (for restart tests). */
  stop(): Promise<void>;
  /** Stops and deletes the data directory. */
  close(): Promise<void>;
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'cairn-test-'));
}

export async function startServer(options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? tempDataDir();
  const config = loadConfig({
    CAIRN_CACHE_DIR: TEST_CACHE_DIR,
    CAIRN_WORKER: 'off',
    ...options.env,
    CAIRN_DATA_DIR: dataDir,
    CAIRN_LOG_LEVEL: 'warn',
  });
  const { engine, store, worker, routes, middleware, shutdown } = await compose(config);
  const app = createApp(engine, { apiKey: config.http.apiKey, routes, middleware });
  const http = await listen(app);
  const stop = async (): Promise<void> => {
    await http.close();
    await shutdown();
  };
  return {
    url: http.url,
    engine,
    store,
    worker,
    dataDir,
    call: http.call,
    stop,
    async close() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
