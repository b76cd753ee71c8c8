// The reconcile step for keyword indexes of deleted banks, through the store port with plain data: a dry run
// reports what it finds and drops nothing, a real run reports what the store dropped (which re-checks), and a
// store that drops a bank's indexes with the bank (the embedded one) implements neither method and finds nothing.
// The Neo4j side of the port (listing, digests, DROP INDEX) is tested in neo4j/keyword-schema.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { MemoryStore, OrphanIndexes } from './ports.ts';
import { reconcileKeywordIndexes } from './reconcile-indexes.ts';
import { SqliteStore } from './sqlite/store.ts';

function port(found: string[], stillOrphan: (name: string) => boolean = () => true): OrphanIndexes & { drops: string[][] } {
  const drops: string[][] = [];
  return {
    drops,
    orphanKeywordIndexes: async () => [...found],
    dropOrphanKeywordIndexes: async (names) => {
      drops.push(names);
      return names.filter(stillOrphan);
    },
  };
}

test('a dry run reports the orphans and drops nothing', async () => {
  const p = port(['kw_fact_aa', 'kw_chunk_aa']);
  assert.deepEqual(await reconcileKeywordIndexes(p, true), ['kw_fact_aa', 'kw_chunk_aa']);
  assert.deepEqual(p.drops, []);
});

test('a real run hands the orphans to the store and reports what it dropped', async () => {
  const p = port(['kw_fact_aa', 'kw_chunk_aa', 'kw_fact_bb'], (name) => !name.endsWith('_bb'));
  assert.deepEqual(await reconcileKeywordIndexes(p, false), ['kw_fact_aa', 'kw_chunk_aa']);
  assert.deepEqual(p.drops, [['kw_fact_aa', 'kw_chunk_aa', 'kw_fact_bb']]);
});

test('nothing found: nothing to drop', async () => {
  const p = port([]);
  assert.deepEqual(await reconcileKeywordIndexes(p, false), []);
  assert.deepEqual(p.drops, []);
});

test('a store that finds orphans but cannot drop them is an error, not a silent success', async () => {
  await assert.rejects(reconcileKeywordIndexes({ orphanKeywordIndexes: async () => ['kw_fact_aa'] }, false), /cannot drop/);
});

test('the embedded store drops its keyword tables with the bank: it has no orphan index method, and the step finds nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-reconcile-indexes-'));
  const store: MemoryStore = new SqliteStore({ dataDir: dir });
  try {
    assert.equal(store.orphanKeywordIndexes, undefined);
    assert.equal(store.dropOrphanKeywordIndexes, undefined);
    assert.deepEqual(await reconcileKeywordIndexes(store, true), []);
    assert.deepEqual(await reconcileKeywordIndexes(store, false), []);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
