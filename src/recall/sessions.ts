// Sessions in recall: the session expressions of a query ("our first session", "last time", "sessions 2 through 4")
// resolved against the bank's sessions, the fused candidates kept to the sessions named, and the session each
// result came from.
//
// Relative expressions count from the current session: the session in progress at the query time (the latest one
// started, when its days, first item to last in UTC, include the query's day), else an imaginary session after it. "last time" and "the previous session" are the one before it, "two sessions ago" the one
// before that; "earlier chats" are all sessions started before the query time except the latest of them. Ordinals
// ("our 3rd conversation") are the bank's, whatever the query time. Sessions starting after the query time are
// never counted back to.
import { DAY_MS, type Fact } from '../core/index.ts';
import type { RecallReads, SessionInfo } from '../store/index.ts';
import { parseSessionExpressions, type SessionExpression, type SessionRef } from '../text/index.ts';
import type { FactLoader } from './facts.ts';

export interface SessionScope {
  expressions: SessionExpression[];
  /** The sessions named, by ordinal; empty when the bank has none of them (recall then ignores the expressions). */
  sessions: SessionInfo[];
  ids: Set<string>;
}

/** Which session a recall result came from. */
export interface SessionLabel {
  id: string;
  ordinal: number;
}

const dayStart = (t: number): number => Math.floor(t / DAY_MS) * DAY_MS;

/** Sessions started by `at`, in order (a prefix of the bank's order: sessions are ordered by start). */
function startedBy(sessions: SessionInfo[], at: number): SessionInfo[] {
  return sessions.filter((s) => s.start !== null && Date.parse(s.start) <= at);
}

/** The session in progress at `at`: the latest started one, when its days include the day of `at`. */
export function currentSession(sessions: SessionInfo[], at: Date): SessionInfo | null {
  const t = at.getTime();
  const latest = startedBy(sessions, t).at(-1);
  if (!latest) return null;
  return t < dayStart(Date.parse(latest.end ?? latest.start ?? '')) + DAY_MS ? latest : null;
}

/** The sessions the references name, by ordinal. */
export function resolveSessions(refs: SessionRef[], sessions: SessionInfo[], at: Date): SessionInfo[] {
  const started = startedBy(sessions, at.getTime());
  const latest = started.at(-1)?.ordinal ?? 0;
  const current = currentSession(sessions, at);
  const anchor = current ? current.ordinal : latest + 1;
  const named = new Set<number>();
  const add = (from: number, to: number): void => {
    for (let n = Math.max(1, from); n <= to; n++) named.add(n);
  };
  for (const ref of refs) {
    if (ref.kind === 'ordinal') add(ref.from, ref.to);
    else if (ref.kind === 'ago') add(anchor - ref.to, Math.min(anchor - ref.from, latest));
    else if (ref.kind === 'earlier') add(1, latest - 1);
    else if (current) named.add(current.ordinal);
  }
  return sessions.filter((s) => named.has(s.ordinal));
}

/** The sessions a query names, or null when it names none (then no session is read from the store). */
export async function sessionScope(store: RecallReads, bankId: string, query: string, queryTime: Date): Promise<SessionScope | null> {
  const expressions = parseSessionExpressions(query);
  if (expressions.length === 0) return null;
  const sessions = resolveSessions(
    expressions.map((e) => e.ref),
    await store.sessions(bankId),
    queryTime,
  );
  return { expressions, sessions, ids: new Set(sessions.map((s) => s.id)) };
}

/** Whether a fact comes from one of the sessions. */
export const inSessions = (fact: Fact, ids: Set<string>): boolean => fact.source?.session != null && ids.has(fact.source.session);

/**
 * The fused candidates of the named sessions, in their order: a query that names sessions is answered from them
 * only. Facts are read a window at a time until `want` are kept (or the list ends). Unchanged without a scope.
 */
export async function keepSessions<T extends { id: string }>(
  fused: T[],
  facts: FactLoader,
  scope: SessionScope | null,
  want: number,
): Promise<T[]> {
  if (!scope || scope.ids.size === 0) return fused;
  const kept: T[] = [];
  const window = Math.max(want * 2, 50);
  for (let i = 0; i < fused.length && kept.length < want; i += window) {
    const part = fused.slice(i, i + window);
    const byId = new Map((await facts.get(part.map((c) => c.id))).map((f) => [f.id, f]));
    for (const c of part) {
      const f = byId.get(c.id);
      if (f && inSessions(f, scope.ids)) kept.push(c);
    }
  }
  return kept;
}

/** The session labels of the facts' sessions (the bank's sessions are read only when some fact has one). */
export async function sessionLabels(store: RecallReads, bankId: string, facts: Fact[]): Promise<Map<string, SessionLabel>> {
  if (!facts.some((f) => f.source?.session)) return new Map();
  return new Map((await store.sessions(bankId)).map((s) => [s.id, { id: s.id, ordinal: s.ordinal }]));
}

export const sessionLabel = (fact: Fact, labels: Map<string, SessionLabel>): SessionLabel | null =>
  (fact.source?.session && labels.get(fact.source.session)) || null;
