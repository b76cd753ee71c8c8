// Store conformance, Maintenance role: changing embedder, and closing and opening again.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { type Conformance, idsOf } from '../context.ts';
import { at, EMBEDDER, unit } from '../fixtures.ts';

export function maintenanceConformance(ctx: Conformance): void {
  describe('Maintenance', () => {
    let store: MemoryStore;
    const { seeded } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('changing embedder: vectors dropped, re-embedded, and a third embedder refused', async () => {
      const { bankId, facts } = await seeded('reembed');
      await store.resetEmbedder(bankId, 'second-embedder');
      assert.equal((await store.getBank(bankId))?.embedder, 'second-embedder');
      assert.deepEqual(await store.vectors.search(bankId, unit(0), 10), []);
      assert.equal((await store.getVectors(bankId, idsOf(facts))).size, 0);
      await store.putVectors(
        bankId,
        'second-embedder',
        facts.map((f, i) => ({ id: f.id, vector: unit(7 - i) })),
      );
      assert.equal((await store.vectors.search(bankId, unit(7), 1))[0].id, facts[0].id);
      await assert.rejects(store.putVectors(bankId, 'third-embedder', [{ id: facts[0].id, vector: unit(0) }]));
      await assert.rejects(store.putVectors(bankId, 'second-embedder', [{ id: `${bankId}-nope`, vector: unit(0) }]));
    });

    test('restart: closing and opening again keeps everything', async () => {
      const { bankId, facts } = await seeded('restart');
      await store.createOperation({
        id: `${bankId}-op`,
        bankId,
        kind: 'retain',
        status: 'running',
        progress: { done: 1, total: 2 },
        input: null,
        result: null,
        error: null,
        createdAt: at(1),
        updatedAt: at(1),
      });
      await store.close();
      store = await ctx.reopen();
      assert.equal((await store.getBank(bankId))?.embedder, EMBEDDER);
      assert.equal((await store.listFacts(bankId, { limit: 10, offset: 0 })).total, 4);
      assert.equal((await store.vectors.search(bankId, unit(2), 1))[0].id, facts[2].id);
      assert.equal((await store.keywords.searchFacts(bankId, 'violin', 1))[0].id, facts[2].id);
      assert.equal((await store.graph.linksOf(bankId, [facts[0].id])).length, 1);
      assert.ok((await store.unfinishedOperations()).some((o) => o.id === `${bankId}-op`));
      assert.equal((await store.backlog(bankId)).waiting, 4);
    });
  });
}
