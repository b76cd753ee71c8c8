// The ThreadStore port on the embedded SQLite database (tables of migrations/sqlite/004_threads.sql): threads,
// messages, memory items and working memory. Every multi-row write is one transaction, so a killed process
// leaves either all of a change or none of it.
import type { Statement } from 'better-sqlite3';
import {
  seqsFree,
  type ItemFilter,
  type MemoryChange,
  type StoredItem,
  type StoredMessage,
  type ThreadStore,
  type Watermarks,
  type MemoryItem,
  type MemoryKind,
  type MemoryStatus,
  type MessageRole,
  type NewMessage,
  type Thread,
  type ThreadMessage,
  type ToolCall,
  type WorkingMemory,
} from '../../threads/index.ts';
import type { Db } from './database.ts';
import { placeholders, type Row } from './rows.ts';
import { tombstone } from './writes.ts';

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toThread(r: Row): Thread {
  return {
    bankId: String(r.bank_id),
    id: String(r.id),
    resourceId: str(r.resource_id),
    settings: JSON.parse(String(r.settings)) as Record<string, unknown>,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

function toMessage(r: Row): ThreadMessage {
  return {
    seq: Number(r.seq),
    id: String(r.id),
    bankId: String(r.bank_id),
    threadId: String(r.thread_id),
    role: String(r.role) as MessageRole,
    name: str(r.name),
    content: String(r.content),
    toolCalls: r.tool_calls ? (JSON.parse(String(r.tool_calls)) as ToolCall[]) : null,
    timestamp: String(r.timestamp),
    tokens: Number(r.tokens),
    createdAt: String(r.created_at),
  };
}

function toItem(r: Row): MemoryItem {
  return {
    id: String(r.id),
    bankId: String(r.bank_id),
    recordId: String(r.record_id),
    threadId: str(r.thread_id),
    kind: String(r.kind) as MemoryKind,
    generation: Number(r.generation),
    status: String(r.status) as MemoryStatus,
    text: String(r.text),
    tokens: Number(r.tokens),
    fromSeq: num(r.from_seq),
    toSeq: num(r.to_seq),
    messageCount: Number(r.message_count),
    inputTokens: Number(r.input_tokens),
    covers: JSON.parse(String(r.covers)) as string[],
    currentTask: str(r.current_task),
    suggestedResponse: str(r.suggested_response),
    firstAt: str(r.first_at),
    lastAt: str(r.last_at),
    createdAt: String(r.created_at),
    activatedAt: str(r.activated_at),
    archivedAt: str(r.archived_at),
  };
}

/** Item fields and their columns, for inserts and partial updates. */
const ITEM_COLUMNS: Array<[keyof MemoryItem, string]> = [
  ['id', 'id'],
  ['bankId', 'bank_id'],
  ['recordId', 'record_id'],
  ['threadId', 'thread_id'],
  ['kind', 'kind'],
  ['generation', 'generation'],
  ['status', 'status'],
  ['text', 'text'],
  ['tokens', 'tokens'],
  ['fromSeq', 'from_seq'],
  ['toSeq', 'to_seq'],
  ['messageCount', 'message_count'],
  ['inputTokens', 'input_tokens'],
  ['covers', 'covers'],
  ['currentTask', 'current_task'],
  ['suggestedResponse', 'suggested_response'],
  ['firstAt', 'first_at'],
  ['lastAt', 'last_at'],
  ['createdAt', 'created_at'],
  ['activatedAt', 'activated_at'],
  ['archivedAt', 'archived_at'],
];
const columnOf = new Map(ITEM_COLUMNS);
const ITEM_INSERT = `INSERT INTO thread_memory (${ITEM_COLUMNS.map(([, c]) => c).join(', ')}, bridged_at) VALUES (${placeholders(ITEM_COLUMNS.length + 1)})`;
const dbValue = (field: keyof MemoryItem, v: unknown): unknown => (field === 'covers' ? JSON.stringify(v ?? []) : (v ?? null));

export class SqliteThreadStore implements ThreadStore {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  async getThread(bankId: string, threadId: string): Promise<Thread | null> {
    const r = this.stmt('SELECT * FROM threads WHERE bank_id = ? AND id = ?').get(bankId, threadId) as Row | undefined;
    return r ? toThread(r) : null;
  }

  async saveThread(t: Thread): Promise<void> {
    this.stmt(
      `INSERT INTO threads (bank_id, id, resource_id, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (bank_id, id) DO UPDATE SET resource_id = excluded.resource_id, settings = excluded.settings, updated_at = excluded.updated_at`,
    ).run(t.bankId, t.id, t.resourceId, JSON.stringify(t.settings), t.createdAt, t.updatedAt);
  }

  async listThreads(bankId: string, q: { resourceId?: string; limit: number; offset: number }): Promise<Thread[]> {
    const rows = q.resourceId
      ? this.stmt('SELECT * FROM threads WHERE bank_id = ? AND resource_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?').all(
          bankId,
          q.resourceId,
          q.limit,
          q.offset,
        )
      : this.stmt('SELECT * FROM threads WHERE bank_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?').all(bankId, q.limit, q.offset);
    return (rows as Row[]).map(toThread);
  }

  /** Immediate: it reads (the thread, for its tombstone) before it writes, and a deferred transaction whose snapshot
   * another connection's commit made stale fails at its first write instead of waiting its turn. */
  async deleteThread(bankId: string, threadId: string, reason: string): Promise<void> {
    this.db
      .transaction(() => {
        if (this.stmt('SELECT 1 FROM threads WHERE bank_id = ? AND id = ?').get(bankId, threadId))
          tombstone(this.db, bankId, 'thread', threadId, reason);
        this.stmt("DELETE FROM thread_memory WHERE bank_id = ? AND (record_id = ? OR (thread_id = ? AND kind = 'observation'))").run(
          bankId,
          `thread:${threadId}`,
          threadId,
        );
        this.stmt('DELETE FROM thread_working_memory WHERE bank_id = ? AND key = ?').run(bankId, `thread:${threadId}`);
        this.stmt('DELETE FROM thread_messages WHERE bank_id = ? AND thread_id = ?').run(bankId, threadId);
        this.stmt('DELETE FROM threads WHERE bank_id = ? AND id = ?').run(bankId, threadId);
      })
      .immediate();
  }

  /** Numbers the messages on from the thread's last seq; immediate, so another connection cannot take the same numbers. */
  async appendMessages(bankId: string, threadId: string, messages: NewMessage[]): Promise<ThreadMessage[]> {
    const last = this.stmt('SELECT coalesce(max(seq), 0) AS seq FROM thread_messages WHERE bank_id = ? AND thread_id = ?');
    const insert = this.stmt(
      `INSERT INTO thread_messages (seq, id, bank_id, thread_id, role, name, content, tool_calls, timestamp, tokens, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    return this.db
      .transaction(() => {
        let seq = (last.get(bankId, threadId) as { seq: number }).seq;
        return messages.map((m) => {
          seq += 1;
          insert.run(
            seq,
            m.id,
            bankId,
            threadId,
            m.role,
            m.name,
            m.content,
            m.toolCalls ? JSON.stringify(m.toolCalls) : null,
            m.timestamp,
            m.tokens,
            m.createdAt,
          );
          return { ...m, bankId, threadId, seq };
        });
      })
      .immediate();
  }

  async listMessages(
    bankId: string,
    threadId: string,
    q: { afterSeq?: number; limit?: number; offset?: number } = {},
  ): Promise<ThreadMessage[]> {
    const rows = this.stmt(
      'SELECT * FROM thread_messages WHERE bank_id = ? AND thread_id = ? AND seq > ? ORDER BY seq LIMIT ? OFFSET ?',
    ).all(bankId, threadId, q.afterSeq ?? 0, q.limit ?? -1, q.offset ?? 0) as Row[];
    return rows.map(toMessage);
  }

  async countMessages(bankId: string, threadId: string): Promise<{ count: number; tokens: number }> {
    const r = this.stmt('SELECT count(*) AS n, coalesce(sum(tokens), 0) AS t FROM thread_messages WHERE bank_id = ? AND thread_id = ?').get(
      bankId,
      threadId,
    ) as { n: number; t: number };
    return { count: r.n, tokens: r.t };
  }

  async watermarks(bankId: string, threadId: string): Promise<Watermarks> {
    const r = this.stmt(
      `SELECT coalesce(max(CASE WHEN status IN ('active', 'archived') THEN to_seq END), 0) AS observed, coalesce(max(to_seq), 0) AS buffered
       FROM thread_memory WHERE bank_id = ? AND thread_id = ? AND kind = 'observation'`,
    ).get(bankId, threadId) as { observed: number; buffered: number };
    return { observed: r.observed, buffered: r.buffered };
  }

  async listItems(bankId: string, recordId: string, filter: ItemFilter = {}): Promise<MemoryItem[]> {
    let sql = 'SELECT * FROM thread_memory WHERE bank_id = ? AND record_id = ?';
    const params: unknown[] = [bankId, recordId];
    if (filter.statuses?.length) {
      sql += ` AND status IN (${placeholders(filter.statuses.length)})`;
      params.push(...filter.statuses);
    }
    if (filter.kinds?.length) {
      sql += ` AND kind IN (${placeholders(filter.kinds.length)})`;
      params.push(...filter.kinds);
    }
    if (filter.threadId) {
      sql += ' AND thread_id = ?';
      params.push(filter.threadId);
    }
    if (filter.limit !== undefined) {
      sql += ' ORDER BY rid LIMIT ?';
      params.push(filter.limit);
    } else sql += ' ORDER BY rid';
    return (this.stmt(sql).all(...params) as Row[]).map(toItem);
  }

  async commit(bankId: string, change: MemoryChange): Promise<{ missing: string[] }> {
    const missing: string[] = [];
    this.db.transaction(() => {
      for (const item of change.insert ?? []) this.insertItem(item, null);
      for (const { id, ...patch } of change.update ?? []) {
        const fields = (Object.keys(patch) as Array<keyof MemoryItem>).filter((f) => columnOf.has(f));
        if (!fields.length) continue;
        const sets = fields.map((f) => `${columnOf.get(f)} = ?`).join(', ');
        const info = this.stmt(`UPDATE thread_memory SET ${sets} WHERE bank_id = ? AND id = ?`).run(
          ...fields.map((f) => dbValue(f, (patch as Partial<MemoryItem>)[f])),
          bankId,
          id,
        );
        if (info.changes === 0) missing.push(id);
      }
      for (const id of change.remove ?? []) this.stmt('DELETE FROM thread_memory WHERE bank_id = ? AND id = ?').run(bankId, id);
    })();
    return { missing };
  }

  private insertItem(item: MemoryItem, bridgedAt: string | null): void {
    this.stmt(ITEM_INSERT).run(...ITEM_COLUMNS.map(([f]) => dbValue(f, item[f])), bridgedAt);
  }

  async discardRunning(bankId: string, recordId: string): Promise<number> {
    return this.stmt("DELETE FROM thread_memory WHERE bank_id = ? AND record_id = ? AND status = 'running'").run(bankId, recordId).changes;
  }

  async clearRecord(bankId: string, recordId: string): Promise<number> {
    return this.stmt('DELETE FROM thread_memory WHERE bank_id = ? AND record_id = ?').run(bankId, recordId).changes;
  }

  async getWorkingMemory(bankId: string, key: string): Promise<WorkingMemory | null> {
    const r = this.stmt('SELECT * FROM thread_working_memory WHERE bank_id = ? AND key = ?').get(bankId, key) as Row | undefined;
    return r ? { bankId, key, content: String(r.content), updatedAt: String(r.updated_at) } : null;
  }

  async putWorkingMemory(doc: WorkingMemory): Promise<void> {
    this.stmt(
      `INSERT INTO thread_working_memory (bank_id, key, content, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (bank_id, key) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`,
    ).run(doc.bankId, doc.key, doc.content, doc.updatedAt);
  }

  async deleteWorkingMemory(bankId: string, key: string): Promise<boolean> {
    return this.stmt('DELETE FROM thread_working_memory WHERE bank_id = ? AND key = ?').run(bankId, key).changes > 0;
  }

  async unbridgedMessages(bankId: string, threadId: string, limit: number): Promise<ThreadMessage[]> {
    return (
      this.stmt('SELECT * FROM thread_messages WHERE bank_id = ? AND thread_id = ? AND bridged_at IS NULL ORDER BY seq LIMIT ?').all(
        bankId,
        threadId,
        limit,
      ) as Row[]
    ).map(toMessage);
  }

  async unbridgedObservations(bankId: string, recordId: string, limit: number): Promise<MemoryItem[]> {
    return (
      this.stmt(
        "SELECT * FROM thread_memory WHERE bank_id = ? AND record_id = ? AND kind = 'observation' AND status IN ('active', 'archived') AND bridged_at IS NULL ORDER BY rid LIMIT ?",
      ).all(bankId, recordId, limit) as Row[]
    ).map(toItem);
  }

  async markBridged(bankId: string, ids: { messages?: string[]; items?: string[] }): Promise<void> {
    const at = new Date().toISOString();
    this.db.transaction(() => {
      for (const id of ids.messages ?? [])
        this.stmt('UPDATE thread_messages SET bridged_at = ? WHERE bank_id = ? AND id = ?').run(at, bankId, id);
      for (const id of ids.items ?? [])
        this.stmt('UPDATE thread_memory SET bridged_at = ? WHERE bank_id = ? AND id = ?').run(at, bankId, id);
    })();
  }

  async exportMessages(bankId: string, threadId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const rows = this.stmt('SELECT * FROM thread_messages WHERE bank_id = ? AND thread_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(
      bankId,
      threadId,
      afterSeq,
      limit,
    ) as Row[];
    return rows.map((r) => ({ ...toMessage(r), bridgedAt: str(r.bridged_at) }));
  }

  async exportItems(bankId: string, limit: number, offset: number): Promise<StoredItem[]> {
    const rows = this.stmt('SELECT * FROM thread_memory WHERE bank_id = ? ORDER BY rid LIMIT ? OFFSET ?').all(
      bankId,
      limit,
      offset,
    ) as Row[];
    return rows.map((r) => ({ ...toItem(r), bridgedAt: str(r.bridged_at) }));
  }

  async listWorkingMemory(bankId: string): Promise<WorkingMemory[]> {
    const rows = this.stmt('SELECT * FROM thread_working_memory WHERE bank_id = ? ORDER BY key').all(bankId) as Row[];
    return rows.map((r) => ({ bankId, key: String(r.key), content: String(r.content), updatedAt: String(r.updated_at) }));
  }

  /** Immediate, like appendMessages: the seqs checked free stay free until the messages are in. */
  async restoreMessages(bankId: string, threadId: string, messages: StoredMessage[], renumber: boolean): Promise<number[]> {
    const insert = this.stmt(
      `INSERT INTO thread_messages (seq, id, bank_id, thread_id, role, name, content, tool_calls, timestamp, tokens, created_at, bridged_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const taken = this.stmt('SELECT 1 FROM thread_messages WHERE bank_id = ? AND thread_id = ? AND seq = ?').pluck();
    const last = this.stmt('SELECT coalesce(max(seq), 0) FROM thread_messages WHERE bank_id = ? AND thread_id = ?').pluck();
    return this.db
      .transaction(() => {
        const keep =
          !renumber &&
          seqsFree(
            messages.map((m) => m.seq),
            (seq) => taken.get(bankId, threadId, seq) !== undefined,
          );
        const first = keep ? 0 : (last.get(bankId, threadId) as number) + 1;
        return messages.map((m, i) => {
          const seq = keep ? m.seq : first + i;
          insert.run(
            seq,
            m.id,
            bankId,
            threadId,
            m.role,
            m.name,
            m.content,
            m.toolCalls ? JSON.stringify(m.toolCalls) : null,
            m.timestamp,
            m.tokens,
            m.createdAt,
            m.bridgedAt,
          );
          return seq;
        });
      })
      .immediate();
  }

  async restoreItems(bankId: string, items: StoredItem[]): Promise<void> {
    this.db.transaction(() => {
      for (const { bridgedAt, ...item } of items) this.insertItem({ ...item, bankId }, bridgedAt);
    })();
  }

  async deleteBank(bankId: string): Promise<void> {
    this.db.transaction(() => {
      for (const table of ['thread_memory', 'thread_working_memory', 'thread_messages', 'threads'])
        this.stmt(`DELETE FROM ${table} WHERE bank_id = ?`).run(bankId);
    })();
  }
}
