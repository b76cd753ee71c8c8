// The ThreadStore port on Neo4j (Cypher: statements/threads.ts), so API processes sharing a server store share
// every thread too. Semantics follow the embedded adapter (store/sqlite/threads.ts) and the conformance suite
// (test/conformance/threads-suite.ts); every multi-row write is one transaction.
//
// Message numbering: each Thread node keeps the last seq it handed out (`lastSeq`). A write of a thread's
// messages first takes the Thread node's write lock (lockThread), then reads lastSeq, creates the messages after
// it and writes the new lastSeq, all in one transaction: a second process appending to the same thread waits at
// the lock until the first commits and then reads its lastSeq, so the two never take the same numbers (and a
// uniqueness constraint on the thread's seqs would refuse it if they did). The lock is on the Thread node rather
// than a counter node of its own because a message needs its thread to exist anyway (as the embedded store's
// foreign key demands) and deleteThread takes the same lock, so a deletion never leaves an append's messages
// behind. Memory items get their creation order (`rid`) from one counter node per bank, the same way.
import { CairnError, quoteId } from '../../core/index.ts';
import {
  seqsFree,
  type ItemFilter,
  type MemoryChange,
  type StoredItem,
  type StoredMessage,
  type ThreadStore,
  type Watermarks,
  type MemoryItem,
  type NewMessage,
  type Thread,
  type ThreadMessage,
  type WorkingMemory,
} from '../../threads/index.ts';
import type { Neo4jConnection, Tx } from './connection.ts';
import { propsOf } from './rows.ts';
import * as records from './statements/records.ts';
import * as st from './statements/threads.ts';
import type { Params } from './statement.ts';
import {
  itemPatch,
  itemProps,
  messageProps,
  toItem,
  toMessage,
  toStoredItem,
  toStoredMessage,
  toThread,
  toWorkingMemory,
} from './thread-rows.ts';

/** Read pages as large as this when a call asks for no limit. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export class Neo4jThreadStore implements ThreadStore {
  constructor(private readonly db: Neo4jConnection) {}

  async getThread(bankId: string, threadId: string): Promise<Thread | null> {
    const [row] = await this.db.read(st.getThread(bankId, threadId));
    return row ? toThread(propsOf(row, 'thread')) : null;
  }

  async saveThread(t: Thread): Promise<void> {
    await this.db.write(
      st.saveThread({
        bankId: t.bankId,
        id: t.id,
        resourceId: t.resourceId,
        settings: JSON.stringify(t.settings),
        createdAt: t.createdAt,
        updatedAt: t.updatedAt,
      }),
    );
  }

  async listThreads(bankId: string, q: { resourceId?: string; limit: number; offset: number }): Promise<Thread[]> {
    const rows = await this.db.read(st.listThreads(bankId, q.resourceId || null, q.limit, q.offset));
    return rows.map((r) => toThread(propsOf(r, 'thread')));
  }

  async deleteThread(bankId: string, threadId: string, reason: string): Promise<void> {
    await this.db.writeTx(async (tx) => {
      const now = new Date().toISOString();
      const [held] = await tx.run(st.lockThread(bankId, threadId, now));
      if (held) await tx.run(records.createTombstones([records.tombstone(bankId, 'thread', threadId, reason, now)]));
      for (const s of st.deleteThread(bankId, threadId)) await tx.run(s);
    });
  }

  /** The thread's last seq, with its lock held for the rest of the transaction. */
  private async lockThread(tx: Tx, bankId: string, threadId: string): Promise<number> {
    const [row] = await tx.run(st.lockThread(bankId, threadId, new Date().toISOString()));
    if (!row) throw new CairnError('not_found', `thread ${quoteId(threadId)} of bank ${quoteId(bankId)} does not exist`);
    return Number(row.lastSeq);
  }

  async appendMessages(bankId: string, threadId: string, messages: NewMessage[]): Promise<ThreadMessage[]> {
    if (messages.length === 0) return [];
    return this.db.writeTx(async (tx) => {
      const last = await this.lockThread(tx, bankId, threadId);
      const out = messages.map((m, i) => ({ ...m, bankId, threadId, seq: last + i + 1 }));
      await tx.run(
        st.createMessages(
          bankId,
          threadId,
          out.map((m) => messageProps(m)),
          last + out.length,
        ),
      );
      return out;
    });
  }

  async restoreMessages(bankId: string, threadId: string, messages: StoredMessage[], renumber: boolean): Promise<number[]> {
    if (messages.length === 0) return [];
    return this.db.writeTx(async (tx) => {
      const last = await this.lockThread(tx, bankId, threadId);
      const wanted = messages.map((m) => m.seq);
      const taken = renumber ? null : new Set((await tx.run(st.takenSeqs(bankId, threadId, wanted))).map((r) => Number(r.seq)));
      const keep = taken !== null && seqsFree(wanted, (seq) => taken.has(seq));
      const seqs = keep ? wanted : messages.map((_, i) => last + i + 1);
      const props = messages.map((m, i) => messageProps({ ...m, bankId, threadId, seq: seqs[i] }));
      await tx.run(st.createMessages(bankId, threadId, props, Math.max(last, ...seqs)));
      return seqs;
    });
  }

  async listMessages(
    bankId: string,
    threadId: string,
    q: { afterSeq?: number; limit?: number; offset?: number } = {},
  ): Promise<ThreadMessage[]> {
    return (
      await this.messages(bankId, threadId, {
        afterSeq: q.afterSeq ?? 0,
        limit: q.limit ?? NO_LIMIT,
        offset: q.offset ?? 0,
        unbridged: false,
      })
    ).map(toMessage);
  }

  private async messages(bankId: string, threadId: string, q: Parameters<typeof st.listMessages>[2]): Promise<Params[]> {
    return (await this.db.read(st.listMessages(bankId, threadId, q))).map((r) => propsOf(r, 'message'));
  }

  async countMessages(bankId: string, threadId: string): Promise<{ count: number; tokens: number }> {
    const [row] = await this.db.read(st.countMessages(bankId, threadId));
    return { count: Number(row?.count ?? 0), tokens: Number(row?.tokens ?? 0) };
  }

  async watermarks(bankId: string, threadId: string): Promise<Watermarks> {
    const [row] = await this.db.read(st.watermarks(bankId, threadId));
    return { observed: Number(row?.observed ?? 0), buffered: Number(row?.buffered ?? 0) };
  }

  async listItems(bankId: string, recordId: string, filter: ItemFilter = {}): Promise<MemoryItem[]> {
    const rows = await this.db.read(
      st.listItems(bankId, recordId, {
        statuses: filter.statuses?.length ? filter.statuses : null,
        kinds: filter.kinds?.length ? filter.kinds : null,
        threadId: filter.threadId || null,
        limit: filter.limit ?? null,
      }),
    );
    return rows.map((r) => toItem(propsOf(r, 'item')));
  }

  /** Creates the items after every item of the bank in creation order, bridge state as given. */
  private async insertItems(tx: Tx, bankId: string, items: Array<{ item: MemoryItem; bridgedAt: string | null }>): Promise<void> {
    if (items.length === 0) return;
    const [row] = await tx.run(st.takeRids(bankId, items.length, new Date().toISOString()));
    const first = Number(row.first);
    await tx.run(st.createItems(items.map(({ item, bridgedAt }, i) => itemProps({ ...item, bankId }, first + i, bridgedAt))));
  }

  async commit(bankId: string, change: MemoryChange): Promise<{ missing: string[] }> {
    return this.db.writeTx(async (tx) => {
      await this.insertItems(
        tx,
        bankId,
        (change.insert ?? []).map((item) => ({ item, bridgedAt: null })),
      );
      const updates = (change.update ?? []).flatMap(({ id, ...fields }) => {
        const patch = itemPatch(fields);
        return patch ? [{ id, patch }] : [];
      });
      const missing: string[] = [];
      if (updates.length) {
        const found = new Set((await tx.run(st.updateItems(bankId, updates))).map((r) => String(r.id)));
        for (const u of updates) if (!found.has(u.id)) missing.push(u.id);
      }
      if (change.remove?.length) await tx.run(st.removeItems(bankId, change.remove));
      return { missing };
    });
  }

  async discardRunning(bankId: string, recordId: string): Promise<number> {
    const [row] = await this.db.write(st.deleteItemsOfRecord(bankId, recordId, true));
    return Number(row?.deleted ?? 0);
  }

  async clearRecord(bankId: string, recordId: string): Promise<number> {
    const [row] = await this.db.write(st.deleteItemsOfRecord(bankId, recordId, false));
    return Number(row?.deleted ?? 0);
  }

  async getWorkingMemory(bankId: string, key: string): Promise<WorkingMemory | null> {
    const [row] = await this.db.read(st.getWorkingMemory(bankId, key));
    return row ? toWorkingMemory(propsOf(row, 'doc')) : null;
  }

  async putWorkingMemory(doc: WorkingMemory): Promise<void> {
    await this.db.write(st.putWorkingMemory({ bankId: doc.bankId, key: doc.key, content: doc.content, updatedAt: doc.updatedAt }));
  }

  async deleteWorkingMemory(bankId: string, key: string): Promise<boolean> {
    const [row] = await this.db.write(st.deleteWorkingMemory(bankId, key));
    return Number(row?.deleted ?? 0) > 0;
  }

  async listWorkingMemory(bankId: string): Promise<WorkingMemory[]> {
    return (await this.db.read(st.listWorkingMemory(bankId))).map((r) => toWorkingMemory(propsOf(r, 'doc')));
  }

  async unbridgedMessages(bankId: string, threadId: string, limit: number): Promise<ThreadMessage[]> {
    return (await this.messages(bankId, threadId, { afterSeq: 0, limit, offset: 0, unbridged: true })).map(toMessage);
  }

  async unbridgedObservations(bankId: string, recordId: string, limit: number): Promise<MemoryItem[]> {
    return (await this.db.read(st.unbridgedObservations(bankId, recordId, limit))).map((r) => toItem(propsOf(r, 'item')));
  }

  async markBridged(bankId: string, ids: { messages?: string[]; items?: string[] }): Promise<void> {
    const at = new Date().toISOString();
    await this.db.writeTx(async (tx) => {
      if (ids.messages?.length) await tx.run(st.markMessagesBridged(bankId, ids.messages, at));
      if (ids.items?.length) await tx.run(st.markItemsBridged(bankId, ids.items, at));
    });
  }

  async exportMessages(bankId: string, threadId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    return (await this.messages(bankId, threadId, { afterSeq, limit, offset: 0, unbridged: false })).map(toStoredMessage);
  }

  async exportItems(bankId: string, limit: number, offset: number): Promise<StoredItem[]> {
    return (await this.db.read(st.exportItems(bankId, limit, offset))).map((r) => toStoredItem(propsOf(r, 'item')));
  }

  async restoreItems(bankId: string, items: StoredItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.db.writeTx((tx) =>
      this.insertItems(
        tx,
        bankId,
        items.map(({ bridgedAt, ...item }) => ({ item, bridgedAt })),
      ),
    );
  }

  async deleteBank(bankId: string): Promise<void> {
    await this.db.writeTx(async (tx) => {
      for (const s of st.deleteThreadsOfBank(bankId)) await tx.run(s);
    });
  }
}
