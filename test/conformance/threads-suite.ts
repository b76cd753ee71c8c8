// The thread store conformance suite: the behaviours every ThreadStore must have, whatever it is built on (the
// ones src/threads/* and export/import rely on). The embedded store runs it in CI (sqlite-threads.test.ts); the
// Neo4j adapter runs it against a real server when one is configured (server.test.ts). Two store instances on
// separate connections stand for two API processes sharing one database. Each test works in banks of its own,
// named for this run, with ids unique to the run (the embedded store's message and item ids are unique across banks).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AuditReads, BankStore } from '../../src/store/ports.ts';
import type { StoredItem, StoredMessage, ThreadStore } from '../../src/threads/ports.ts';
import type { MemoryItem, NewMessage, Thread } from '../../src/threads/types.ts';
import { at, bank, runId } from './fixtures.ts';

export interface ThreadStores {
  /** Where banks live (the thread store's rows belong to a bank), and the tombstones of deleted threads. */
  banks: BankStore & Pick<AuditReads, 'tombstoneOf'>;
  threads: ThreadStore;
  /** Another thread store on its own connection to the same database (another process's view). */
  other: ThreadStore;
  close(): Promise<void>;
}

export interface ThreadStoreHarness {
  open(): Promise<ThreadStores>;
}

export function threadStoreConformance(label: string, harness: ThreadStoreHarness): void {
  describe(`thread store conformance: ${label}`, () => {
    const run = runId();
    const B = (name: string): string => `conf-${run}-${name}`;
    const created = new Set<string>();
    let s: ThreadStores;
    let store: ThreadStore;

    before(async () => {
      s = await harness.open();
      store = s.threads;
    });
    after(async () => {
      for (const id of created) {
        await store.deleteBank(id).catch(() => undefined);
        await s.banks.deleteBank(id).catch(() => undefined);
      }
      await s.close();
    });

    async function newBank(name: string): Promise<string> {
      const id = B(name);
      await s.banks.createBank(bank(id));
      created.add(id);
      return id;
    }

    function thread(bankId: string, id: string, o: Partial<Thread> = {}): Thread {
      return { bankId, id, resourceId: null, settings: {}, createdAt: at(1), updatedAt: at(1), ...o };
    }

    async function newThread(bankId: string, id: string, o: Partial<Thread> = {}): Promise<Thread> {
      const t = thread(bankId, id, o);
      await store.saveThread(t);
      return t;
    }

    /** Messages with ids `${bankId}-${threadId}-${prefix}-${i}`, `tokens` i + 1. */
    function messages(bankId: string, threadId: string, prefix: string, n: number): NewMessage[] {
      return Array.from({ length: n }, (_, i) => ({
        id: `${bankId}-${threadId}-${prefix}-${i}`,
        bankId,
        threadId,
        role: i % 2 ? 'assistant' : 'user',
        name: i === 0 ? 'Alice' : null,
        content: `${prefix} message ${i}`,
        toolCalls: i === 1 ? [{ id: 'call-1', name: 'search', arguments: { q: 'x', n: 2 } }] : null,
        timestamp: at(2, i % 24),
        tokens: i + 1,
        createdAt: at(3),
      }));
    }

    function item(bankId: string, id: string, o: Partial<MemoryItem> = {}): MemoryItem {
      return {
        id: `${bankId}-${id}`,
        bankId,
        recordId: 'thread:t',
        threadId: 't',
        kind: 'observation',
        generation: 0,
        status: 'active',
        text: `text of ${id}`,
        tokens: 5,
        fromSeq: 1,
        toSeq: 2,
        messageCount: 2,
        inputTokens: 20,
        covers: [],
        currentTask: null,
        suggestedResponse: null,
        firstAt: at(2),
        lastAt: at(2, 13),
        createdAt: at(4),
        activatedAt: null,
        archivedAt: null,
        ...o,
      };
    }

    const seqs = async (bankId: string, threadId: string, st = store): Promise<number[]> =>
      (await st.listMessages(bankId, threadId)).map((m) => m.seq);
    const ids = (xs: Array<{ id: string }>): string[] => xs.map((x) => x.id);

    describe('threads', () => {
      test('save inserts or replaces (keeping createdAt), get finds it in its own bank only', async () => {
        const b1 = await newBank('thr-save-1');
        const b2 = await newBank('thr-save-2');
        const t = await newThread(b1, 'chat', {
          resourceId: 'user-1',
          settings: { scope: 'resource', observation: { messageTokens: 500 } },
        });
        assert.deepEqual(await store.getThread(b1, 'chat'), t);
        assert.equal(await store.getThread(b2, 'chat'), null);
        assert.equal(await store.getThread(b1, 'other'), null);
        await store.saveThread({ ...t, resourceId: null, settings: { bridge: true }, createdAt: at(9), updatedAt: at(5) });
        assert.deepEqual(await store.getThread(b1, 'chat'), { ...t, resourceId: null, settings: { bridge: true }, updatedAt: at(5) });
      });

      test('list: by creation time then id, by resource, paged, per bank', async () => {
        const b1 = await newBank('thr-list-1');
        const b2 = await newBank('thr-list-2');
        await newThread(b1, 'c', { createdAt: at(2), resourceId: 'r1' });
        await newThread(b1, 'b', { createdAt: at(3), resourceId: 'r2' });
        await newThread(b1, 'a', { createdAt: at(3), resourceId: 'r1' });
        await newThread(b1, 'd', { createdAt: at(1) });
        await newThread(b2, 'e', { createdAt: at(1), resourceId: 'r1' });
        const list = async (q: { resourceId?: string; limit: number; offset: number }) => ids(await store.listThreads(b1, q));
        assert.deepEqual(await list({ limit: 10, offset: 0 }), ['d', 'c', 'a', 'b']);
        assert.deepEqual(await list({ limit: 2, offset: 1 }), ['c', 'a']);
        assert.deepEqual(await list({ resourceId: 'r1', limit: 10, offset: 0 }), ['c', 'a']);
        assert.deepEqual(await list({ resourceId: 'r1', limit: 1, offset: 1 }), ['a']);
        assert.deepEqual(await list({ resourceId: 'nobody', limit: 10, offset: 0 }), []);
        assert.deepEqual((await store.listThreads(b1, { limit: 1, offset: 0 }))[0], thread(b1, 'd', { createdAt: at(1) }));
      });
    });

    describe('messages', () => {
      test('append numbers each thread 1, 2, 3 ... in order, returns what list reads back', async () => {
        const b1 = await newBank('msg-seq-1');
        const b2 = await newBank('msg-seq-2');
        for (const [b, t] of [
          [b1, 'x'],
          [b1, 'y'],
          [b2, 'x'],
        ])
          await newThread(b, t);
        const first = await store.appendMessages(b1, 'x', messages(b1, 'x', 'a', 3));
        assert.deepEqual(
          first.map((m) => m.seq),
          [1, 2, 3],
        );
        assert.deepEqual(
          first,
          messages(b1, 'x', 'a', 3).map((m, i) => ({ ...m, seq: i + 1 })),
        );
        assert.deepEqual(
          (await store.appendMessages(b1, 'y', messages(b1, 'y', 'a', 2))).map((m) => m.seq),
          [1, 2],
          'another thread counts on its own',
        );
        assert.deepEqual(
          (await store.appendMessages(b2, 'x', messages(b2, 'x', 'a', 1))).map((m) => m.seq),
          [1],
          "another bank's thread of that name too",
        );
        const next = await store.appendMessages(b1, 'x', messages(b1, 'x', 'b', 2));
        assert.deepEqual(
          next.map((m) => [m.id, m.seq]),
          [
            [`${b1}-x-b-0`, 4],
            [`${b1}-x-b-1`, 5],
          ],
        );
        assert.deepEqual(await store.listMessages(b1, 'x'), [...first, ...next]);
        assert.deepEqual(await store.appendMessages(b1, 'x', []), []);
        assert.deepEqual(await seqs(b1, 'x'), [1, 2, 3, 4, 5]);
        assert.deepEqual(await seqs(b2, 'x'), [1]);
      });

      test('list after a seq, paged; count sums tokens', async () => {
        const b = await newBank('msg-list');
        await newThread(b, 't');
        await newThread(b, 'u');
        await store.appendMessages(b, 't', messages(b, 't', 'm', 6));
        await store.appendMessages(b, 'u', messages(b, 'u', 'm', 2));
        assert.deepEqual(
          (await store.listMessages(b, 't', { afterSeq: 4 })).map((m) => m.seq),
          [5, 6],
        );
        assert.deepEqual(
          (await store.listMessages(b, 't', { limit: 2 })).map((m) => m.seq),
          [1, 2],
        );
        assert.deepEqual(
          (await store.listMessages(b, 't', { limit: 2, offset: 3 })).map((m) => m.seq),
          [4, 5],
        );
        assert.deepEqual(
          (await store.listMessages(b, 't', { afterSeq: 2, limit: 2, offset: 1 })).map((m) => m.seq),
          [4, 5],
        );
        assert.deepEqual(await store.countMessages(b, 't'), { count: 6, tokens: 21 });
        assert.deepEqual(await store.countMessages(b, 'none'), { count: 0, tokens: 0 });
        assert.deepEqual(await store.listMessages(b, 'none'), []);
      });

      test('appending to a thread that does not exist fails and stores nothing', async () => {
        const b = await newBank('msg-nothread');
        await assert.rejects(store.appendMessages(b, 'ghost', messages(b, 'ghost', 'm', 2)));
        assert.deepEqual(await store.countMessages(b, 'ghost'), { count: 0, tokens: 0 });
      });

      test('two processes appending to one thread at once: every message one seq, no gaps, each batch in order', async () => {
        const b = await newBank('msg-concurrent');
        await newThread(b, 't');
        const batches = 100;
        const size = 10;
        // Each process appends batch after batch, yielding between them (a store whose calls complete synchronously
        // would otherwise run all its batches before the other process got a turn).
        const appender = async (st: ThreadStore, name: string) => {
          const out: Array<Array<{ id: string; seq: number }>> = [];
          for (let i = 0; i < batches; i++) {
            out.push(await st.appendMessages(b, 't', messages(b, 't', `${name}-${i}`, size)));
            await new Promise((resolve) => setImmediate(resolve));
          }
          return out;
        };
        const results = (await Promise.all([appender(store, 'p1'), appender(s.other, 'p2')])).flat();
        const consecutive = Array.from({ length: size }, (_, i) => i);
        for (const r of results)
          assert.deepEqual(
            r.map((m) => m.seq - r[0].seq),
            consecutive,
            'a batch takes consecutive numbers',
          );
        const stored = await store.listMessages(b, 't');
        const total = batches * 2 * size;
        assert.deepEqual(
          stored.map((m) => m.seq),
          Array.from({ length: total }, (_, i) => i + 1),
        );
        const returned = new Map(results.flat().map((m) => [m.id, m.seq]));
        assert.equal(returned.size, total);
        for (const m of stored) assert.equal(returned.get(m.id), m.seq, `${m.id} is stored under the seq append returned`);
        const [last] = await s.other.appendMessages(b, 't', messages(b, 't', 'after', 1));
        assert.equal(last.seq, total + 1);
        assert.deepEqual(
          await seqs(b, 't', s.other),
          [...Array.from({ length: total }, (_, i) => i + 1), total + 1],
          'the other process reads the same',
        );
      });
    });

    describe('memory items', () => {
      test('listItems: creation order (not id or time order), filters by status, kind and thread, one record only', async () => {
        const b = await newBank('items-list');
        const r = 'resource:user-1';
        const a = [
          item(b, 'z1', { recordId: r, threadId: 't1', createdAt: at(9) }),
          item(b, 'y2', { recordId: r, threadId: 't2', status: 'buffered', createdAt: at(8) }),
          item(b, 'x3', {
            recordId: r,
            threadId: null,
            kind: 'reflection',
            generation: 1,
            status: 'active',
            fromSeq: null,
            toSeq: null,
            covers: [`${b}-z1`],
          }),
        ];
        await store.commit(b, { insert: a.slice(0, 2) });
        await store.commit(b, {
          insert: [
            a[2],
            item(b, 'w4', { recordId: r, threadId: 't1', status: 'archived', archivedAt: at(10) }),
            item(b, 'v5', { recordId: 'thread:t1', threadId: 't1' }),
          ],
        });
        await store.commit(b, { update: [{ id: `${b}-z1`, status: 'archived', archivedAt: at(11) }] });
        const list = async (f?: Parameters<ThreadStore['listItems']>[2]) =>
          (await store.listItems(b, r, f)).map((i) => i.id.slice(b.length + 1));
        assert.deepEqual(await list(), ['z1', 'y2', 'x3', 'w4'], 'an update does not move an item');
        assert.deepEqual(await list({ statuses: ['archived'] }), ['z1', 'w4']);
        assert.deepEqual(await list({ statuses: ['active', 'buffered'] }), ['y2', 'x3']);
        assert.deepEqual(await list({ kinds: ['reflection'] }), ['x3']);
        assert.deepEqual(await list({ kinds: ['observation'], statuses: ['archived', 'active'], threadId: 't1' }), ['z1', 'w4']);
        assert.deepEqual(await list({ statuses: [], kinds: [] }), ['z1', 'y2', 'x3', 'w4'], 'empty lists filter nothing');
        assert.deepEqual(await store.listItems(b, r, { threadId: 't2' }), [a[1]]);
        assert.deepEqual((await store.listItems(b, r, { kinds: ['reflection'] }))[0], a[2], 'every field reads back');
        assert.deepEqual(await list({ threadId: 'none' }), []);
        assert.deepEqual(await list({ limit: 2 }), ['z1', 'y2'], 'the first ones in creation order');
        assert.deepEqual(await list({ statuses: ['archived'], limit: 1 }), ['z1']);
        assert.deepEqual(await store.listItems(b, 'thread:none'), []);
      });

      test('commit: inserts, then field changes by id (missing ids reported), then removals, in one step', async () => {
        const b = await newBank('items-commit');
        const other = await newBank('items-commit-other');
        const o = item(other, 'foreign');
        await store.commit(other, { insert: [o] });
        const [i1, i2, i3] = [item(b, 'i1', { status: 'running' }), item(b, 'i2'), item(b, 'i3')];
        await store.commit(b, { insert: [i1, i2, i3] });
        const i4 = item(b, 'i4', { status: 'running' });
        const { missing } = await store.commit(b, {
          insert: [i4],
          update: [
            { id: i1.id, status: 'buffered', text: 'observed', tokens: 2, currentTask: 'write the report', covers: ['a', 'b'] },
            { id: i4.id, status: 'active', activatedAt: at(12) },
            { id: i2.id, suggestedResponse: 'ask', firstAt: null },
            { id: `${b}-gone`, status: 'active' },
            { id: o.id, status: 'archived' },
          ],
          remove: [i3.id, i4.id, `${b}-never`],
        });
        assert.deepEqual(missing, [`${b}-gone`, o.id]);
        assert.deepEqual(await store.listItems(b, 'thread:t'), [
          { ...i1, status: 'buffered', text: 'observed', tokens: 2, currentTask: 'write the report', covers: ['a', 'b'] },
          { ...i2, suggestedResponse: 'ask', firstAt: null },
        ]);
        assert.deepEqual(await store.listItems(other, 'thread:t'), [o], "another bank's item of that id is untouched");
        await store.commit(b, { update: [{ id: i1.id, currentTask: null, covers: [] }] });
        assert.deepEqual((await store.listItems(b, 'thread:t'))[0], { ...i1, status: 'buffered', text: 'observed', tokens: 2 });
      });

      test('a commit that fails part-way changes nothing', async () => {
        const b = await newBank('items-atomic');
        const i1 = item(b, 'i1');
        await store.commit(b, { insert: [i1] });
        await assert.rejects(
          store.commit(b, {
            insert: [item(b, 'fresh'), item(b, 'i1', { text: 'a second i1' })],
            update: [{ id: i1.id, status: 'archived' }],
          }),
        );
        assert.deepEqual(await store.listItems(b, 'thread:t'), [i1]);
      });

      test('discardRunning drops the running items of one record; clearRecord every item of it', async () => {
        const b = await newBank('items-discard');
        await store.commit(b, {
          insert: [
            item(b, 'r1', { status: 'running' }),
            item(b, 'a1'),
            item(b, 'r2', { status: 'running', kind: 'reflection', generation: 1 }),
            item(b, 'r3', { status: 'running', recordId: 'thread:u', threadId: 'u' }),
            item(b, 'b1', { status: 'buffered' }),
          ],
        });
        assert.equal(await store.discardRunning(b, 'thread:t'), 2);
        assert.equal(await store.discardRunning(b, 'thread:t'), 0);
        assert.deepEqual(ids(await store.listItems(b, 'thread:t')), [`${b}-a1`, `${b}-b1`]);
        assert.equal(await store.clearRecord(b, 'thread:t'), 2);
        assert.deepEqual(await store.listItems(b, 'thread:t'), []);
        assert.deepEqual(ids(await store.listItems(b, 'thread:u')), [`${b}-r3`], 'another record keeps its items');
        assert.equal(await store.clearRecord(b, 'thread:none'), 0);
      });

      test('watermarks: highest seq covered by activated observations of the thread, and by any of them', async () => {
        const b = await newBank('items-watermarks');
        assert.deepEqual(await store.watermarks(b, 't'), { observed: 0, buffered: 0 });
        await store.commit(b, {
          insert: [
            item(b, 'o1', { fromSeq: 1, toSeq: 4, status: 'archived' }),
            item(b, 'o2', { fromSeq: 5, toSeq: 7, status: 'active', recordId: 'resource:r' }),
            item(b, 'o3', { fromSeq: 8, toSeq: 10, status: 'buffered' }),
            item(b, 'o4', { fromSeq: 11, toSeq: 12, status: 'running' }),
            item(b, 'r1', { kind: 'reflection', generation: 1, fromSeq: 1, toSeq: 40, status: 'active' }),
            item(b, 'u1', { threadId: 'u', recordId: 'thread:u', fromSeq: 1, toSeq: 30, status: 'archived' }),
          ],
        });
        assert.deepEqual(await store.watermarks(b, 't'), { observed: 7, buffered: 12 });
        assert.deepEqual(await store.watermarks(b, 'u'), { observed: 30, buffered: 30 });
        await store.commit(b, { update: [{ id: `${b}-o3`, status: 'active' }] });
        assert.deepEqual(await store.watermarks(b, 't'), { observed: 10, buffered: 12 });
      });
    });

    describe('working memory', () => {
      test('get, put (replacing), list by key, delete; per bank', async () => {
        const b1 = await newBank('wm-1');
        const b2 = await newBank('wm-2');
        assert.equal(await store.getWorkingMemory(b1, 'thread:t'), null);
        const doc = { bankId: b1, key: 'thread:t', content: '# Notes\n- likes tea', updatedAt: at(2) };
        await store.putWorkingMemory(doc);
        await store.putWorkingMemory({ bankId: b1, key: 'resource:r', content: 'r', updatedAt: at(2) });
        await store.putWorkingMemory({ bankId: b2, key: 'thread:t', content: 'other bank', updatedAt: at(2) });
        assert.deepEqual(await store.getWorkingMemory(b1, 'thread:t'), doc);
        await store.putWorkingMemory({ ...doc, content: '# Notes\n- likes coffee', updatedAt: at(3) });
        assert.deepEqual(await store.getWorkingMemory(b1, 'thread:t'), { ...doc, content: '# Notes\n- likes coffee', updatedAt: at(3) });
        assert.deepEqual(
          (await store.listWorkingMemory(b1)).map((w) => [w.key, w.content]),
          [
            ['resource:r', 'r'],
            ['thread:t', '# Notes\n- likes coffee'],
          ],
        );
        assert.equal(await store.deleteWorkingMemory(b1, 'thread:t'), true);
        assert.equal(await store.deleteWorkingMemory(b1, 'thread:t'), false);
        assert.equal(await store.getWorkingMemory(b1, 'thread:t'), null);
        assert.equal((await store.getWorkingMemory(b2, 'thread:t'))?.content, 'other bank');
      });
    });

    describe('bridge bookkeeping', () => {
      test('unbridged messages in seq order and activated observations in creation order, until marked', async () => {
        const b = await newBank('bridge');
        const other = await newBank('bridge-other');
        await newThread(b, 't');
        await newThread(other, 't');
        await store.appendMessages(b, 't', messages(b, 't', 'm', 5));
        await store.appendMessages(other, 't', messages(other, 't', 'm', 1));
        await store.commit(b, {
          insert: [
            item(b, 'o1', { status: 'archived' }),
            item(b, 'o2', { status: 'buffered' }),
            item(b, 'o3'),
            item(b, 'o4', { status: 'running' }),
            item(b, 'r1', { kind: 'reflection', generation: 1 }),
            item(b, 'o5'),
          ],
        });
        assert.deepEqual(
          (await store.unbridgedMessages(b, 't', 3)).map((m) => m.seq),
          [1, 2, 3],
        );
        assert.deepEqual(ids(await store.unbridgedObservations(b, 'thread:t', 10)), [`${b}-o1`, `${b}-o3`, `${b}-o5`]);
        await store.markBridged(b, { messages: [`${b}-t-m-0`, `${b}-t-m-2`, `${other}-t-m-0`], items: [`${b}-o1`] });
        assert.deepEqual(
          (await store.unbridgedMessages(b, 't', 10)).map((m) => m.seq),
          [2, 4, 5],
        );
        assert.deepEqual(ids(await store.unbridgedObservations(b, 'thread:t', 1)), [`${b}-o3`]);
        assert.deepEqual(
          (await store.unbridgedMessages(other, 't', 10)).map((m) => m.id),
          [`${other}-t-m-0`],
          "another bank's message is not marked through this one",
        );
        await store.markBridged(b, {});
        const exported = await store.exportMessages(b, 't', 0, 10);
        assert.deepEqual(
          exported.map((m) => m.bridgedAt !== null),
          [true, false, true, false, false],
        );
        assert.ok(exported.every((m) => m.bridgedAt === null || !Number.isNaN(Date.parse(m.bridgedAt))));
      });
    });

    describe('export and restore', () => {
      /** A bank with two threads, messages (some bridged), items of two records (some bridged; created out of id order) and working memory. */
      async function populated(name: string): Promise<string> {
        const b = await newBank(name);
        await newThread(b, 't', { resourceId: 'r' });
        await newThread(b, 'u', { resourceId: 'r' });
        await store.appendMessages(b, 't', messages(b, 't', 'm', 4));
        await store.appendMessages(b, 'u', messages(b, 'u', 'm', 2));
        await store.commit(b, {
          insert: [
            item(b, 'o9', { recordId: 'resource:r', threadId: 't', fromSeq: 1, toSeq: 2 }),
            item(b, 'o2', { fromSeq: 3, toSeq: 4, status: 'buffered' }),
            item(b, 'o3', { recordId: 'resource:r', threadId: 'u', fromSeq: 1, toSeq: 2 }),
            item(b, 'r1', {
              recordId: 'resource:r',
              threadId: null,
              kind: 'reflection',
              generation: 1,
              fromSeq: null,
              toSeq: null,
              covers: [`${b}-o9`],
            }),
          ],
        });
        await store.markBridged(b, { messages: [`${b}-t-m-0`], items: [`${b}-o9`] });
        await store.putWorkingMemory({ bankId: b, key: 'resource:r', content: 'wm', updatedAt: at(5) });
        return b;
      }

      test('export pages messages after a seq and items in creation order, with their bridge state', async () => {
        const b = await populated('export');
        const all = await store.exportMessages(b, 't', 0, 100);
        assert.deepEqual(
          all.map((m) => [m.seq, m.bridgedAt !== null]),
          [
            [1, true],
            [2, false],
            [3, false],
            [4, false],
          ],
        );
        assert.deepEqual(
          all.map(({ bridgedAt: _, ...m }) => m),
          await store.listMessages(b, 't'),
        );
        assert.deepEqual(
          (await store.exportMessages(b, 't', 2, 1)).map((m) => m.seq),
          [3],
        );
        const items = await store.exportItems(b, 100, 0);
        assert.deepEqual(
          ids(items),
          ['o9', 'o2', 'o3', 'r1'].map((x) => `${b}-${x}`),
        );
        assert.deepEqual(
          items.map((i) => i.bridgedAt !== null),
          [true, false, false, false],
        );
        assert.deepEqual(ids(await store.exportItems(b, 2, 1)), [`${b}-o2`, `${b}-o3`]);
        assert.deepEqual(
          (await store.listWorkingMemory(b)).map((w) => w.key),
          ['resource:r'],
        );
      });

      test('restore into another bank: same seqs, fields, bridge state and order; appends go on after them', async () => {
        const src = await populated('restore-src');
        const dst = await newBank('restore-dst');
        const rebank = <T extends { bankId: string; id: string }>(x: T): T => ({ ...x, bankId: dst, id: x.id.replace(src, dst) });
        for (const t of ['t', 'u']) {
          const thread = await store.getThread(src, t);
          assert.ok(thread);
          await store.saveThread({ ...thread, bankId: dst });
          const exported = (await store.exportMessages(src, t, 0, 100)).map(rebank);
          // In two runs, as import flushes them.
          const kept = [
            ...(await store.restoreMessages(dst, t, exported.slice(0, 1), false)),
            ...(await store.restoreMessages(dst, t, exported.slice(1), false)),
          ];
          assert.deepEqual(
            kept,
            exported.map((m) => m.seq),
          );
          assert.deepEqual(await store.exportMessages(dst, t, 0, 100), exported);
        }
        const items: StoredItem[] = (await store.exportItems(src, 100, 0)).map((i) => ({
          ...rebank(i),
          covers: i.covers.map((c) => c.replace(src, dst)),
        }));
        // Restored with another bank id on them: the target bank wins.
        await store.restoreItems(
          dst,
          items.slice(0, 3).map((i) => ({ ...i, bankId: src })),
        );
        await store.restoreItems(dst, items.slice(3));
        assert.deepEqual(await store.exportItems(dst, 100, 0), items);
        assert.deepEqual(
          await store.unbridgedObservations(dst, 'resource:r', 10),
          [items[2]].map(({ bridgedAt: _, ...i }) => i),
        );
        assert.deepEqual(await store.watermarks(dst, 't'), await store.watermarks(src, 't'));
        const [next] = await store.appendMessages(dst, 't', messages(dst, 't', 'next', 1));
        assert.equal(next.seq, 5);
        assert.deepEqual((await store.exportItems(src, 100, 0)).length, 4, 'the source is untouched');
      });

      test("restore renumbers every message after the thread's last seq when one is taken, or when asked to", async () => {
        const b = await newBank('restore-renumber');
        await newThread(b, 't');
        await store.appendMessages(b, 't', messages(b, 't', 'live', 3));
        const stored = (n: number, prefix: string, from: number): StoredMessage[] =>
          messages(b, 't', prefix, n).map((m, i) => ({ ...m, seq: from + i, bridgedAt: i === 0 ? at(6) : null }));
        const clash = stored(2, 'clash', 3);
        assert.deepEqual(await store.restoreMessages(b, 't', clash, false), [4, 5], 'seq 3 is taken: both get new numbers, in order');
        const free = stored(2, 'asked', 20);
        assert.deepEqual(await store.restoreMessages(b, 't', free, true), [6, 7], 'renumber: new numbers even though 20 and 21 are free');
        const kept = stored(2, 'kept', 30);
        assert.deepEqual(await store.restoreMessages(b, 't', kept, false), [30, 31]);
        const got = await store.exportMessages(b, 't', 0, 100);
        assert.deepEqual(
          got.map((m) => [m.id.slice(b.length + 3), m.seq]),
          [
            ['live-0', 1],
            ['live-1', 2],
            ['live-2', 3],
            ['clash-0', 4],
            ['clash-1', 5],
            ['asked-0', 6],
            ['asked-1', 7],
            ['kept-0', 30],
            ['kept-1', 31],
          ],
        );
        assert.deepEqual(got[3], { ...clash[0], seq: 4 }, 'a renumbered message keeps everything else');
        const [next] = await store.appendMessages(b, 't', messages(b, 't', 'next', 1));
        assert.equal(next.seq, 32);
        assert.deepEqual(await store.restoreMessages(b, 't', [], false), []);
      });
    });

    describe('deletion', () => {
      test('deleteThread removes the thread, its messages, its record, its observations elsewhere and its working memory; nothing else', async () => {
        const b = await newBank('del-thread');
        const other = await newBank('del-thread-other');
        for (const bk of [b, other]) {
          await newThread(bk, 't', { resourceId: 'r' });
          await newThread(bk, 'u', { resourceId: 'r' });
          await store.appendMessages(bk, 't', messages(bk, 't', 'm', 2));
          await store.appendMessages(bk, 'u', messages(bk, 'u', 'm', 2));
          await store.commit(bk, {
            insert: [
              item(bk, 't-own'),
              item(bk, 't-own-reflection', { kind: 'reflection', generation: 1, threadId: null }),
              item(bk, 't-in-resource', { recordId: 'resource:r', threadId: 't' }),
              item(bk, 'u-in-resource', { recordId: 'resource:r', threadId: 'u' }),
              item(bk, 'resource-reflection', { recordId: 'resource:r', threadId: null, kind: 'reflection', generation: 1 }),
              item(bk, 'u-own', { recordId: 'thread:u', threadId: 'u' }),
            ],
          });
          for (const key of ['thread:t', 'thread:u', 'resource:r'])
            await store.putWorkingMemory({ bankId: bk, key, content: key, updatedAt: at(2) });
        }
        await store.deleteThread(b, 't', 'user asked');
        assert.equal(await store.getThread(b, 't'), null);
        const stone = await s.banks.tombstoneOf(b, 't', ['thread']);
        assert.deepEqual(stone && { kind: stone.kind, targetId: stone.targetId, reason: stone.reason }, {
          kind: 'thread',
          targetId: 't',
          reason: 'user asked',
        });
        assert.equal(await s.banks.tombstoneOf(other, 't', ['thread']), null, "the other bank's thread is not deleted");
        // A thread that does not exist leaves no tombstone.
        await store.deleteThread(b, 'never', 'x');
        assert.equal(await s.banks.tombstoneOf(b, 'never', ['thread']), null);
        assert.deepEqual(await store.listMessages(b, 't'), []);
        assert.deepEqual(await store.listItems(b, 'thread:t'), []);
        assert.deepEqual(ids(await store.listItems(b, 'resource:r')), [`${b}-u-in-resource`, `${b}-resource-reflection`]);
        assert.deepEqual(ids(await store.listItems(b, 'thread:u')), [`${b}-u-own`]);
        assert.deepEqual(
          (await store.listWorkingMemory(b)).map((w) => w.key),
          ['resource:r', 'thread:u'],
        );
        assert.deepEqual(ids(await store.listThreads(b, { limit: 10, offset: 0 })), ['u']);
        assert.deepEqual(await seqs(b, 'u'), [1, 2]);
        assert.equal((await store.exportItems(other, 100, 0)).length, 6, 'the other bank keeps everything');
        assert.deepEqual(await seqs(other, 't'), [1, 2]);
        // A thread created again under the same id starts from 1.
        await newThread(b, 't');
        assert.deepEqual(
          (await store.appendMessages(b, 't', messages(b, 't', 'again', 1))).map((m) => m.seq),
          [1],
        );
      });

      test('deleteBank removes every thread, message, item and working-memory document of the bank, and only its', async () => {
        const b = await newBank('del-bank');
        const other = await newBank('del-bank-other');
        for (const bk of [b, other]) {
          await newThread(bk, 't');
          await store.appendMessages(bk, 't', messages(bk, 't', 'm', 2));
          await store.commit(bk, { insert: [item(bk, 'i1')] });
          await store.putWorkingMemory({ bankId: bk, key: 'thread:t', content: 'x', updatedAt: at(2) });
        }
        await store.deleteBank(b);
        assert.deepEqual(await store.listThreads(b, { limit: 10, offset: 0 }), []);
        assert.deepEqual(await store.listMessages(b, 't'), []);
        assert.deepEqual(await store.exportItems(b, 10, 0), []);
        assert.deepEqual(await store.listWorkingMemory(b), []);
        assert.equal((await store.listThreads(other, { limit: 10, offset: 0 })).length, 1);
        assert.deepEqual(await seqs(other, 't'), [1, 2]);
        assert.equal((await store.exportItems(other, 10, 0)).length, 1);
        assert.equal((await store.listWorkingMemory(other)).length, 1);
        await newThread(b, 't');
        assert.deepEqual(
          (await store.appendMessages(b, 't', messages(b, 't', 'again', 1))).map((m) => m.seq),
          [1],
        );
        await store.commit(b, { insert: [item(b, 'i2'), item(b, 'i3')] });
        assert.deepEqual(ids(await store.exportItems(b, 10, 0)), [`${b}-i2`, `${b}-i3`]);
      });

      test('deleting the bank from the memory store takes its threads with it', async () => {
        const b = await newBank('del-via-store');
        await newThread(b, 't');
        await store.appendMessages(b, 't', messages(b, 't', 'm', 2));
        await store.commit(b, { insert: [item(b, 'i1')] });
        await store.putWorkingMemory({ bankId: b, key: 'thread:t', content: 'x', updatedAt: at(2) });
        await s.banks.deleteBank(b);
        assert.deepEqual(await store.listThreads(b, { limit: 10, offset: 0 }), []);
        assert.deepEqual(await store.listMessages(b, 't'), []);
        assert.deepEqual(await store.exportItems(b, 10, 0), []);
        assert.deepEqual(await store.listWorkingMemory(b), []);
      });
    });
  });
}
