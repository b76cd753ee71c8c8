// Sessions of the embedded store: ordinals computed from the stored chunks whenever the bank changed, and the facts
// of named sessions. The bank's sessions are found by skipping through the chunks_by_session index (one seek per
// session, never a scan of the bank's chunks); the list is kept per bank until the bank's session version (bumped by
// every write that adds or removes chunks, in any process) moves on.
import type { Fact } from '../../core/index.ts';
import type { FactFilter, SessionInfo } from '../ports.ts';
import { numberSessions } from '../session-order.ts';
import type { Db } from './database.ts';
import { factFilterSql } from './filters.ts';
import { FACT_COLUMNS, F, inLists, toFact } from './rows.ts';
import { prepared } from './statements.ts';

/**
 * Per session: its earliest and latest timestamp, and the first chunk stored at its earliest time (the tie-break: the
 * session retained first). Each value is one seek into chunks_by_session (bank, session, timestamp, rowid).
 */
const SESSIONS_SQL = `
  WITH RECURSIVE s(id) AS (
    SELECT (SELECT min(session) FROM chunks WHERE bank_id = @bank AND session IS NOT NULL)
    UNION ALL
    SELECT (SELECT min(session) FROM chunks WHERE bank_id = @bank AND session IS NOT NULL AND session > s.id) FROM s WHERE s.id IS NOT NULL
  )
  SELECT id,
    (SELECT min(timestamp) FROM chunks WHERE bank_id = @bank AND session = s.id AND timestamp IS NOT NULL) AS start,
    (SELECT max(timestamp) FROM chunks WHERE bank_id = @bank AND session = s.id) AS end,
    coalesce(
      (SELECT rid FROM chunks WHERE bank_id = @bank AND session = s.id AND timestamp IS NOT NULL ORDER BY timestamp, rid LIMIT 1),
      (SELECT min(rid) FROM chunks WHERE bank_id = @bank AND session = s.id)
    ) AS first
  FROM s WHERE id IS NOT NULL`;

interface SessionRow {
  id: string;
  start: string | null;
  end: string | null;
  first: number;
}

export class SqliteSessions {
  private readonly cache = new Map<string, { version: number; sessions: SessionInfo[] }>();

  constructor(private readonly db: Db) {}

  list(bankId: string): SessionInfo[] {
    const row = prepared(this.db, 'SELECT session_version AS v FROM bank_versions WHERE bank_id = ?').get(bankId) as
      | { v: number }
      | undefined;
    const version = row?.v ?? 0;
    const cached = this.cache.get(bankId);
    if (cached && cached.version === version) return cached.sessions;
    const rows = prepared(this.db, SESSIONS_SQL).all({ bank: bankId }) as SessionRow[];
    const sessions = numberSessions(rows, (a, b) => a.first - b.first).map(({ id, ordinal, start, end }) => ({ id, ordinal, start, end }));
    this.cache.set(bankId, { version, sessions });
    return sessions;
  }

  forget(bankId: string): void {
    this.cache.delete(bankId);
  }

  /** Up to `limitPerSession` facts of each session, in the order they were stored (through facts_by_session). */
  factsOf(bankId: string, sessionIds: string[], limitPerSession: number, filter: FactFilter): Fact[] {
    const where = factFilterSql(filter, 'f');
    const rids: number[] = [];
    const ofSession = prepared(
      this.db,
      `SELECT f.rid AS rid FROM facts f WHERE f.bank_id = ? AND f.session = ? AND f.session IS NOT NULL ${where.sql} ORDER BY f.rid LIMIT ?`,
    );
    for (const id of new Set(sessionIds))
      for (const r of ofSession.all(bankId, id, ...where.params, limitPerSession) as Array<{ rid: number }>) rids.push(r.rid);
    const out: Fact[] = [];
    for (const list of inLists(rids)) {
      const rows = prepared(this.db, `SELECT ${FACT_COLUMNS} FROM facts f WHERE f.rid IN (${list.marks})`)
        .raw()
        .all(...list.values) as unknown[][];
      out.push(...rows.sort((a, b) => Number(a[F.rid]) - Number(b[F.rid])).map(toFact));
    }
    return out;
  }
}
