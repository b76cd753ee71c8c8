// Store conformance, WriteLeases role: one writer per bank across store instances.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import type { MemoryStore } from '../../../src/store/ports.ts';
import { Engine } from '../../../src/engine.ts';
import { OfflineExtractor } from '../../../src/retain/offline-extractor.ts';
import { nameKey } from '../../../src/text/words.ts';
import type { Conformance } from '../context.ts';
import { at, HashEmbedder } from '../fixtures.ts';

export function writeLeasesConformance(ctx: Conformance): void {
  describe('WriteLeases', () => {
    let store: MemoryStore;
    const { newBank, harness } = ctx;
    beforeEach(() => {
      store = ctx.store;
    });

    test('write leases: one holder per bank, renewed by it, taken when lapsed or from a holder found dead, across two store instances', async () => {
      const bankId = await newBank('leases');
      const other = await newBank('leases-other');
      const second = await harness.open(); // another process's connection
      try {
        const lease = (holder: string, ms = 60_000, id = bankId) => ({
          bankId: id,
          holder,
          host: 'conformance',
          pid: 7,
          startedAt: at(1),
          until: new Date(Date.now() + ms).toISOString(),
        });
        const a = lease('holder-a');
        assert.deepEqual(await store.takeWriteLease(a), a, 'a free lease is taken');
        assert.deepEqual(await second.takeWriteLease(lease('holder-b')), a, 'refused while another holds it: the holder is named');
        assert.equal((await second.takeWriteLease(lease('holder-b', 60_000, other))).holder, 'holder-b', 'banks have leases of their own');
        const renewed = lease('holder-a', 120_000);
        assert.deepEqual(await store.takeWriteLease(renewed), renewed, 'its holder renews it');
        assert.equal(
          (await second.takeWriteLease(lease('holder-b'), 'holder-z')).holder,
          'holder-a',
          'a takeover names the holder it replaces',
        );
        assert.equal(
          (await second.takeWriteLease(lease('holder-b'), 'holder-a')).holder,
          'holder-b',
          'taken over from a holder found dead',
        );
        await store.releaseWriteLease(bankId, 'holder-a');
        assert.equal((await store.takeWriteLease(lease('holder-c'))).holder, 'holder-b', "a former holder's release changes nothing");
        await second.releaseWriteLease(bankId, 'holder-b');
        assert.equal((await store.takeWriteLease(lease('holder-c', -1000))).holder, 'holder-c', 'a released lease is free');
        assert.equal((await second.takeWriteLease(lease('holder-d'))).holder, 'holder-d', 'a lease that ran out is free');
        await second.releaseWriteLease(bankId, 'holder-d');
        await second.releaseWriteLease(other, 'holder-b');
      } finally {
        await second.close();
      }
    });

    test('two store instances retaining into one bank at once resolve each name to one entity', async () => {
      const bankId = await newBank('two-writers');
      const second = await harness.open();
      const engines = [store, second].map(
        (s) => new Engine({ store: s, embedder: new HashEmbedder(), reranker: null, extractor: new OfflineExtractor() }),
      );
      try {
        const names = ['Alice Johnson', 'Bob Carter', 'Carol Diaz', 'Dmitri Ivanov'];
        const items = (n: number) =>
          names.map((name, i) => ({
            content: `${name} met ${names[(i + 1) % names.length]} in Berlin on day ${n}. ${name} works at Globex Corporation.`,
            timestamp: at(2 + n),
          }));
        await Promise.all(Array.from({ length: 6 }, (_, n) => engines[n % 2].retain(bankId, { items: items(n) })));
        // Every entity row (a duplicate may be unreachable by its name's key, which the first one took).
        const byName = new Map<string, string[]>();
        for (const e of await store.listEntities(bankId, 1000, 0))
          byName.set(nameKey(e.name), [...(byName.get(nameKey(e.name)) ?? []), e.id]);
        for (const name of [...names, 'Globex Corporation'])
          assert.equal(byName.get(nameKey(name))?.length, 1, `one entity named ${name}: ${JSON.stringify(byName.get(nameKey(name)))}`);
      } finally {
        await second.close();
      }
    });
  });
}
