// Migration 011 on a database stored before facts had a stance and a context: the stance read at retain moves from
// a fact's metadata to its own column (an agent's own turn never has one), the metadata stays as it was, and the
// facts are read back with no context and stay findable by their words.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { databaseBefore } from './migration-testing.ts';
import { SqliteStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-stance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('an upgraded database: stances move out of metadata into their column; metadata and keywords stay', async () => {
  const old = databaseBefore(dir, '011');
  const now = '2024-01-01T00:00:00.000Z';
  old.prepare('INSERT INTO banks (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run('b', 'b', now, now);
  const facts: Array<[string, string, string]> = [
    ['rule', 'world', '{"stance":"instruction","key":"r"}'],
    ['likes', 'world', '{"stance":"preference"}'],
    ['agent', 'experience', '{"stance":"instruction"}'],
    ['odd', 'world', '{"stance":"whatever"}'],
    ['plain', 'world', '{}'],
  ];
  for (const [id, kind, metadata] of facts)
    old
      .prepare(
        `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, metadata, created_at, updated_at) VALUES (?, 'b', ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, kind, `${id} harbour ferries`, now, metadata, now, now);
  const file = old.name;
  old.close();

  const store = new SqliteStore({ file });
  try {
    const read = new Map(
      (
        await store.getFacts(
          'b',
          facts.map(([id]) => id),
        )
      ).map((f) => [f.id, f]),
    );
    assert.deepEqual(
      facts.map(([id]) => read.get(id)?.stance),
      ['instruction', 'preference', null, null, null],
    );
    assert.deepEqual(read.get('rule')?.metadata, { stance: 'instruction', key: 'r' }, 'metadata unchanged');
    assert.ok([...read.values()].every((f) => f.context === null));
    const standing = await store.listFacts('b', { limit: 10, offset: 0, stances: ['instruction', 'preference'] });
    assert.deepEqual(standing.facts.map((f) => f.id).sort(), ['likes', 'rule']);
    assert.equal((await store.keywords.searchFacts('b', 'ferries', 10)).length, facts.length);
  } finally {
    store.close();
  }
});
