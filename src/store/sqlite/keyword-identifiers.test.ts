// Identifiers in keyword search: a query holding pg_dump, v2.3.1, ERR_CONNECTION_REFUSED or socket.io finds the fact
// that names it before facts that merely hold its parts apart (shorter ones, written first, which plain word matching
// ranks higher).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from './store.ts';

const NOW = '2024-01-01T00:00:00.000Z';

/** Pairs of facts: one holding the identifier's parts apart (written first), one naming the identifier. */
const CASES: Array<{ query: string; parts: string; named: string }> = [
  {
    query: 'what changed in v2.3.1',
    parts: 'Version 2 had 3 bugs and 1 fix, v2 wins.',
    named: 'The client was upgraded to v2.3.1 last week after the release.',
  },
  {
    query: 'when does pg_dump run',
    parts: 'pg can dump it.',
    named: 'The nightly backup job runs pg_dump at two in the morning and uploads the file.',
  },
  {
    query: 'ERR_CONNECTION_REFUSED in the browser',
    parts: 'Connection refused: err.',
    named: 'The browser console shows ERR_CONNECTION_REFUSED as soon as the page loads.',
  },
  { query: 'why socket.io', parts: 'io socket', named: 'We picked socket.io for the realtime chat because of its rooms and reconnection.' },
];

test('a query naming an identifier ranks the fact that names it first', async () => {
  const store = new SqliteStore({ file: ':memory:' });
  try {
    await store.createBank({ id: 'b', name: 'b', mission: '', config: {}, embedder: null, createdAt: NOW, updatedAt: NOW });
    const insert = store.db.prepare(
      `INSERT INTO facts (id, bank_id, kind, text, mentioned_at, created_at, updated_at) VALUES (?, 'b', 'world', ?, ?, ?, ?)`,
    );
    store.db.transaction(() => {
      CASES.forEach((c, i) => {
        insert.run(`parts-${i}`, c.parts, NOW, NOW, NOW);
        insert.run(`named-${i}`, c.named, NOW, NOW, NOW);
      });
    })();
    for (const [i, c] of CASES.entries()) {
      const hits = await store.keywords.searchFacts('b', c.query, 5);
      assert.equal(hits[0]?.id, `named-${i}`, `${c.query}: ${JSON.stringify(hits)}`);
    }
    // Abbreviations are not identifiers: "e.g." adds no phrase of single letters.
    assert.deepEqual(
      (await store.keywords.searchFacts('b', 'e.g. the nightly backup', 5)).map((h) => h.id),
      ['named-1'],
    );
  } finally {
    await store.close();
  }
});
