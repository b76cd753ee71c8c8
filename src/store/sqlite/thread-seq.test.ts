// Thread message seq counts per thread: the store numbers each thread's messages 1, 2, 3 ... and migration 007
// renumbers messages stored when seq was global, mapping the seq ranges observations cover onto the new numbers.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openDatabase, SQLITE_MIGRATIONS_DIR } from './database.ts';
import { SqliteThreadStore } from './threads.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-thread-seq-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('messages stored with a global seq are renumbered per thread, observation ranges follow, appends continue', async () => {
  // The schema as it was before migration 007.
  const before = join(dir, 'migrations-before');
  mkdirSync(before);
  for (const f of readdirSync(SQLITE_MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f < '007'))
    copyFileSync(join(SQLITE_MIGRATIONS_DIR, f), join(before, f));
  const file = join(dir, 'cairn.db');
  const old = openDatabase(file, before);
  const now = '2024-01-01T00:00:00.000Z';
  old.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', now, now);
  for (const t of ['x', 'y'])
    old.prepare('INSERT INTO threads (bank_id, id, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', t, now, now);
  const insert = old.prepare(
    `INSERT INTO thread_messages (id, bank_id, thread_id, role, content, timestamp, tokens, created_at) VALUES (?, 'b', ?, 'user', ?, ?, 5, ?)`,
  );
  // Global seqs 1..7, interleaved: x gets 1, 2, 4, 7 and y gets 3, 5, 6.
  for (const [i, t] of ['x', 'x', 'y', 'x', 'y', 'y', 'x'].entries()) insert.run(`m${i + 1}`, t, `message ${i + 1}`, now, now);
  const item = old.prepare(
    `INSERT INTO thread_memory (id, bank_id, record_id, thread_id, kind, generation, status, text, tokens, from_seq, to_seq, created_at)
     VALUES (?, 'b', ?, ?, 'observation', 0, 'active', 'obs', 3, ?, ?, ?)`,
  );
  item.run('ox', 'thread:x', 'x', 2, 4, now); // x's messages m2 and m4
  item.run('oy', 'thread:y', 'y', 3, 5, now); // y's messages m3 and m5
  old
    .prepare(
      `INSERT INTO thread_memory (id, bank_id, record_id, kind, generation, status, text, tokens, created_at) VALUES ('r', 'b', 'thread:x', 'reflection', 1, 'active', 'r', 1, ?)`,
    )
    .run(now);
  old.close();

  const db = openDatabase(file);
  const store = new SqliteThreadStore(db);
  const seqs = async (t: string) => (await store.listMessages('b', t)).map((m) => [m.id, m.seq]);
  assert.deepEqual(await seqs('x'), [
    ['m1', 1],
    ['m2', 2],
    ['m4', 3],
    ['m7', 4],
  ]);
  assert.deepEqual(await seqs('y'), [
    ['m3', 1],
    ['m5', 2],
    ['m6', 3],
  ]);
  const ranges = Object.fromEntries(
    (await store.listItems('b', 'thread:x')).concat(await store.listItems('b', 'thread:y')).map((i) => [i.id, [i.fromSeq, i.toSeq]]),
  );
  assert.deepEqual(ranges, { ox: [2, 3], oy: [1, 2], r: [null, null] });
  assert.deepEqual(await store.watermarks('b', 'x'), { observed: 3, buffered: 3 });
  assert.deepEqual(
    (await store.listMessages('b', 'x', { afterSeq: 3 })).map((m) => m.id),
    ['m7'],
  );

  const added = await store.appendMessages('b', 'y', [
    {
      id: 'n1',
      bankId: 'b',
      threadId: 'y',
      role: 'user',
      name: null,
      content: 'new',
      toolCalls: null,
      timestamp: now,
      tokens: 2,
      createdAt: now,
    },
  ]);
  assert.equal(added[0].seq, 4);
  const fresh = await store.appendMessages('b', 'z', []);
  assert.deepEqual(fresh, []);
  db.close();
});
