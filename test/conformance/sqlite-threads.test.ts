// The thread store and usage ledger conformance suites on the embedded store: a SQLite file in a temporary
// directory, with the second thread store on its own connection in a worker thread (another process's view).
// Runs in CI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/store.ts';
import { SqliteThreadStore } from '../../src/store/sqlite/threads.ts';
import { SqliteUsageLedger } from '../../src/store/sqlite/usage.ts';
import type { ThreadStore } from '../../src/threads/ports.ts';
import { typescriptThread } from '../../src/worker-loader.ts';
import { ledgerConformance } from './ledger-suite.ts';
import type { Call, Reply } from './thread-store-thread.ts';
import { threadStoreConformance } from './threads-suite.ts';

/** A ThreadStore whose every call runs in `worker`. */
function remoteThreadStore(worker: Worker): ThreadStore {
  let next = 0;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  worker.on('message', (reply: Reply | 'ready') => {
    if (reply === 'ready') return;
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    if ('error' in reply) w?.reject(new Error(reply.error));
    else w?.resolve(reply.value);
  });
  return new Proxy({} as ThreadStore, {
    get:
      (_, method) =>
      (...args: unknown[]) =>
        new Promise((resolve, reject) => {
          const id = ++next;
          waiting.set(id, { resolve, reject });
          worker.postMessage({ id, method: method as keyof ThreadStore, args } satisfies Call);
        }),
  });
}

threadStoreConformance('sqlite (embedded)', {
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-thread-conformance-'));
    const banks = new SqliteStore({ dataDir: dir });
    const worker = typescriptThread(new URL('./thread-store-thread.ts', import.meta.url), { workerData: { file: join(dir, 'cairn.db') } });
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (m) => m === 'ready' && resolve());
    });
    return {
      banks,
      threads: new SqliteThreadStore(banks.db),
      other: remoteThreadStore(worker),
      async close() {
        worker.postMessage('close');
        await new Promise((resolve) => worker.once('exit', resolve));
        await banks.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

ledgerConformance('sqlite (embedded)', {
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-ledger-conformance-'));
    const db = openDatabase(join(dir, 'cairn.db'));
    return {
      ledger: new SqliteUsageLedger(db),
      async close() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
