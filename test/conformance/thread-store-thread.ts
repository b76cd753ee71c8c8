// A SqliteThreadStore on a connection of its own in a worker thread, for the thread store conformance suite: the
// embedded store's "other process". better-sqlite3 is synchronous, so two connections on one thread never
// overlap; on two threads their transactions really race for the database file.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteThreadStore } from '../../src/store/sqlite/threads.ts';
import type { ThreadStore } from '../../src/threads/ports.ts';

export interface Call {
  id: number;
  method: keyof ThreadStore;
  args: unknown[];
}

export type Reply = { id: number; value: unknown } | { id: number; error: string };

const port = parentPort;
if (port) {
  const db = openDatabase((workerData as { file: string }).file);
  const store = new SqliteThreadStore(db);
  port.on('message', (call: Call | 'close') => {
    if (call === 'close') {
      db.close();
      port.close();
      return;
    }
    const method = store[call.method] as (...args: unknown[]) => Promise<unknown>;
    method.apply(store, call.args).then(
      (value) => port.postMessage({ id: call.id, value } satisfies Reply),
      (e: unknown) => port.postMessage({ id: call.id, error: e instanceof Error ? e.message : String(e) } satisfies Reply),
    );
  });
  port.postMessage('ready');
}
