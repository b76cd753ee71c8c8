// Test support: a real Cairn (embedded store in a temp dir, offline GloVe embedder) behind a real HTTP
// server on 127.0.0.1, plus a small JSON client for it.
import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/api/app.ts';
import { compose } from '../../src/compose.ts';
import { loadConfig } from '../../src/config.ts';
import type { Engine } from '../../src/engine.ts';
import type { ConsolidationWorker } from '../../src/consolidate/worker.ts';
import { TEST_CACHE_DIR } from '../../src/embed/testing.ts';

export { TEST_CACHE_DIR };

export interface TestServer {
  url: string;
  engine: Engine;
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
  const config = loadConfig({ CAIRN_CACHE_DIR: TEST_CACHE_DIR, CAIRN_WORKER: 'off', ...options.env, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'warn' });
  const { engine, worker, routes, shutdown } = await compose(config);
  const app = createApp(engine, { apiKey: config.apiKey, extraRoutes: routes });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = async (): Promise<void> => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await shutdown();
  };
  return {
    url,
    engine,
    worker,
    dataDir,
    async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(url + path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
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
