// Migration 010 on a database stored before sessions: named documents become sessions (their facts follow), a
// standalone item's derived document and a thread's compressed memory do not; the bank's sessions are then ordered
// by time like those written since.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { legacySession } from '../session-order.ts';
import { databaseBefore } from './migration-testing.ts';
import { SqliteStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-sessions-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('an upgraded database: documents with ids of their own are sessions, ordered by time', async () => {
  const old = databaseBefore(dir, '010');
  const now = '2024-01-01T00:00:00.000Z';
  old.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', now, now);
  const derived = 'doc_0123456789abcdef01234567';
  const documents: Array<[string, string]> = [
    ['chat-2', '2024-02-10T10:00:00.000Z'],
    [derived, '2024-01-01T10:00:00.000Z'],
    ['chat-1', '2024-02-03T10:00:00.000Z'],
    ['thread-memory:thread:x', '2024-01-02T10:00:00.000Z'],
  ];
  for (const [id, at] of documents) {
    old
      .prepare('INSERT INTO documents (bank_id, id, content_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run('b', id, 'h', now, now);
    old
      .prepare(
        `INSERT INTO chunks (id, bank_id, document_id, idx, item_id, text, content_hash, timestamp) VALUES (?, 'b', ?, 0, 'i', 't', 'h', ?)`,
      )
      .run(`c-${id}`, id, at);
    old
      .prepare(
        `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, document_id, chunk_id, created_at, updated_at) VALUES (?, 'b', 'world', 't', ?, ?, ?, ?, ?)`,
      )
      .run(`f-${id}`, at, id, `c-${id}`, now, now);
  }
  const file = old.name;
  old.close();

  const store = new SqliteStore({ file });
  try {
    assert.deepEqual(
      (await store.sessions('b')).map((s) => [s.id, s.ordinal]),
      [
        ['chat-1', 1],
        ['chat-2', 2],
      ],
    );
    const facts = await store.getFacts(
      'b',
      documents.map(([id]) => `f-${id}`),
    );
    assert.deepEqual(
      facts.map((f) => f.source?.session),
      ['chat-2', null, 'chat-1', null],
    );
    assert.deepEqual(
      documents.map(([id]) => legacySession(id)),
      ['chat-2', null, 'chat-1', null],
      'the rule an import applies is the same',
    );
  } finally {
    await store.close();
  }
});
