// The embedded thread store beside other writers of the same database file.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { openDatabase } from './database.ts';
import { SqliteThreadStore } from './threads.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-sqlite-threads-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('deleting a thread while another connection writes waits its turn instead of failing', async () => {
  const file = join(dir, 'cairn.db');
  const db = openDatabase(file);
  const now = '2024-01-01T00:00:00.000Z';
  db.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', now, now);
  const store = new SqliteThreadStore(db);
  await store.saveThread({ bankId: 'b', id: 't', resourceId: null, settings: {}, createdAt: now, updatedAt: now });
  // Another connection (a thread: this one blocks while it waits for the lock) holds the write lock, then commits.
  const holder = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const db = new (require(workerData.sqlite))(workerData.file);
     db.exec('BEGIN IMMEDIATE');
     db.prepare("UPDATE banks SET updated_at = ? WHERE id = 'b'").run(new Date().toISOString());
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
     db.exec('COMMIT');
     db.close();`,
    { eval: true, workerData: { file, sqlite: createRequire(import.meta.url).resolve('better-sqlite3') } },
  );
  await new Promise((resolve) => holder.once('message', resolve));
  await store.deleteThread('b', 't', 'user asked');
  await new Promise((resolve) => holder.once('exit', resolve));
  assert.equal(await store.getThread('b', 't'), null);
  db.close();
});
