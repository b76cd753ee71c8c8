// Sessions whatever store holds them: their one order, and the session of what was stored before sessions existed.

/** Order: by the earliest timestamp of their items (sessions without one last), then by the one retained first (as
 * the store can tell), then by id; ordinals count from 1. */
export function numberSessions<T extends { id: string; start: string | null }>(
  rows: T[],
  retainedFirst: (a: T, b: T) => number,
): Array<T & { ordinal: number }> {
  return [...rows]
    .sort((a, b) => {
      if (a.start !== b.start) return a.start === null ? 1 : b.start === null ? -1 : a.start < b.start ? -1 : 1;
      return retainedFirst(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    })
    .map((r, i) => ({ ...r, ordinal: i + 1 }));
}

/**
 * The session of a chunk stored before sessions (an upgraded store, an older archive): its document, unless the
 * document's id was derived for a standalone item (`doc_` and 24 hex digits) or holds a thread's compressed memory.
 * The stores' migrations apply the same rule (sqlite 010_sessions.sql, neo4j 010_session_backfill).
 */
export function legacySession(documentId: string): string | null {
  return /^doc_[0-9a-f]{24}$/.test(documentId) || documentId.startsWith('thread-memory:') ? null : documentId;
}
