// The consolidation queue of the embedded store. The queue is the facts' own state: a fact waits while
// consolidated_at is null; a worker claims a batch under a lease (one transaction, so two workers never
// claim the same fact, and only one worker holds leases in a bank at a time); applying the result checks
// the lease is still held, so a worker whose lease expired (it stalled or was killed) can never apply work
// another worker has since taken. A claim also lapses when its holder's heartbeat does, so a killed worker's
// facts wait seconds, not the whole lease.
import { CairnError, nowIso, type Observation } from '../../core/index.ts';
import type { Claim, DeadLetter, Heartbeat, ObservationWrite, QueueDetail } from '../ports.ts';
import type { Db } from './database.ts';
import { syncKeywordIndexes } from './keyword-tables.ts';
import { json, placeholders } from './rows.ts';
import { bankPurging } from './purges.ts';
import { checkEmbedder, insertFact, putVectors } from './writes.ts';
import { prepared } from './statements.ts';

/** Facts waiting for consolidation. Its terms match index facts_waiting's (bank, dead flag; in rowid order), whose
 * WHERE clause they must repeat word for word for SQLite to use it. */
const QUEUED = `bank_id = ? AND kind != 'observation' AND consolidated_at IS NULL`;
const WAITING = `${QUEUED} AND dead = 0`;
/** Dead letters: waiting facts that failed too often (never claimed again until retried). */
export const DEAD = `${QUEUED} AND dead = 1`;
/** A claim that still holds at `@now`: its lease runs and its holder is not known to have stopped beating. */
const HOLDS = `claim_worker IS NOT NULL AND claim_until >= @now
  AND NOT EXISTS (SELECT 1 FROM heartbeats h WHERE h.id = facts.claim_worker AND h.alive_until < @now)`;
const WAITING_NAMED = WAITING.replace('?', '@bankId');

/** The oldest waiting facts of a bank that no live claim holds and whose retry is due: read from facts_waiting in
 * rowid order, so a claim reads what it takes however long the backlog (exported for the test of its plan). */
export const CLAIMABLE = `SELECT id FROM facts WHERE ${WAITING_NAMED} AND NOT (${HOLDS})
  AND (next_attempt_at IS NULL OR next_attempt_at <= @now) ORDER BY rid LIMIT @limit`;

export function claim(db: Db, bankId: string, workerId: string, limit: number, leaseMs: number): Claim | null {
  return db
    .transaction(() => {
      const now = nowIso();
      // One worker at a time per bank: its facts are consolidated in order, and no observation is revised by two
      // workers at once. Another worker's live claim makes this claim wait; a lapsed one is taken over.
      const busy = prepared(db, `SELECT 1 FROM facts WHERE ${WAITING_NAMED} AND claim_worker != @workerId AND ${HOLDS} LIMIT 1`).get({
        bankId,
        workerId,
        now,
      });
      if (busy) return null;
      // A bank being deleted (deletes.ts) is not consolidated: its facts are going.
      if (bankPurging(db, bankId)) return null;
      const ids = (prepared(db, CLAIMABLE).all({ bankId, now, limit }) as Array<{ id: string }>).map((r) => r.id);
      if (ids.length === 0) return null;
      const leaseUntil = new Date(Date.now() + leaseMs).toISOString();
      prepared(db, `UPDATE facts SET claim_worker = ?, claim_until = ? WHERE id IN (${placeholders(ids.length)})`).run(
        workerId,
        leaseUntil,
        ...ids,
      );
      return { workerId, factIds: ids, leaseUntil };
    })
    .immediate();
}

export function queueDetail(db: Db, bankId: string): QueueDetail {
  const now = nowIso();
  const ready = prepared(
    db,
    `SELECT count(*) AS n FROM facts WHERE ${WAITING_NAMED} AND NOT (${HOLDS}) AND (next_attempt_at IS NULL OR next_attempt_at <= @now)`,
  ).get({ bankId, now }) as { n: number };
  const claims = prepared(
    db,
    `SELECT claim_worker AS workerId, count(*) AS facts, max(claim_until) AS leaseUntil FROM facts
       WHERE ${WAITING_NAMED} AND claim_worker IS NOT NULL GROUP BY claim_worker ORDER BY min(rid)`,
  ).all({ bankId }) as QueueDetail['claims'];
  const retrying = prepared(
    db,
    `SELECT count(*) AS n FROM facts WHERE ${WAITING_NAMED} AND claim_worker IS NULL AND next_attempt_at > @now`,
  ).get({ bankId, now }) as { n: number };
  // The failed fact retried first, with the error it failed with.
  const soonest = prepared(
    db,
    `SELECT next_attempt_at AS at, last_error AS error FROM facts WHERE ${WAITING_NAMED} AND claim_worker IS NULL AND next_attempt_at > @now
       ORDER BY next_attempt_at, rid LIMIT 1`,
  ).get({ bankId, now }) as { at: string; error: string | null } | undefined;
  return { ready: ready.n, claims, retrying: { facts: retrying.n, nextAttemptAt: soonest?.at ?? null, lastError: soonest?.error ?? null } };
}

export function beat(db: Db, h: Heartbeat): void {
  prepared(
    db,
    `INSERT INTO heartbeats (id, role, host, pid, started_at, beat_at, alive_until) VALUES (@id, @role, @host, @pid, @startedAt, @beatAt, @aliveUntil)
     ON CONFLICT(id) DO UPDATE SET role = excluded.role, host = excluded.host, pid = excluded.pid, started_at = excluded.started_at,
       beat_at = excluded.beat_at, alive_until = excluded.alive_until`,
  ).run(h);
}

export function heartbeats(db: Db): Heartbeat[] {
  return prepared(
    db,
    'SELECT id, role, host, pid, started_at AS startedAt, beat_at AS beatAt, alive_until AS aliveUntil FROM heartbeats ORDER BY id',
  ).all() as Heartbeat[];
}

export function retireHeartbeat(db: Db, id: string, beatAt: string | null): boolean {
  return db
    .transaction(() => {
      const row = prepared(db, 'SELECT beat_at FROM heartbeats WHERE id = ?').get(id) as { beat_at: string } | undefined;
      if (row && beatAt !== null && row.beat_at !== beatAt) return false;
      prepared(db, 'DELETE FROM heartbeats WHERE id = ?').run(id);
      prepared(db, 'UPDATE facts SET claim_worker = NULL, claim_until = NULL WHERE claim_worker = ? AND consolidated_at IS NULL').run(id);
      return true;
    })
    .immediate();
}

function assertLease(db: Db, workerId: string, factIds: string[]): void {
  if (factIds.length === 0) return;
  const held = prepared(
    db,
    `SELECT count(*) AS n FROM facts WHERE id IN (${placeholders(factIds.length)}) AND claim_worker = ? AND consolidated_at IS NULL`,
  ).get(...factIds, workerId) as { n: number };
  if (held.n !== factIds.length)
    throw new CairnError('conflict', `worker ${workerId} lost its lease on ${factIds.length - held.n} fact(s)`);
}

function upsertObservation(db: Db, o: Observation): void {
  const exists = prepared(db, 'SELECT 1 FROM facts WHERE id = ?').get(o.id);
  if (!exists) {
    insertFact(db, { ...o, consolidatedAt: o.consolidatedAt ?? o.createdAt });
    return;
  }
  prepared(
    db,
    `UPDATE facts SET text = ?, occurred_start = ?, occurred_end = ?, mentioned_at = ?, tags = ?, valid_from = ?, valid_to = ?,
       metadata = ?, updated_at = ?
     WHERE id = ? AND kind = 'observation'`,
  ).run(o.text, o.occurredStart, o.occurredEnd, o.mentionedAt, json(o.tags), o.validFrom, o.validTo, json(o.metadata), o.updatedAt, o.id);
  prepared(db, 'DELETE FROM fact_entities WHERE fact_id = ?').run(o.id);
  const mention = prepared(db, 'INSERT OR IGNORE INTO fact_entities (fact_id, entity_id, bank_id) VALUES (?, ?, ?)');
  for (const e of o.entities) mention.run(o.id, e, o.bankId);
}

function assertUnchanged(db: Db, bankId: string, expected: Array<{ id: string; updatedAt: string }>): void {
  const read = prepared(db, `SELECT updated_at FROM facts WHERE id = ? AND bank_id = ? AND kind = 'observation'`);
  for (const e of expected) {
    const row = read.get(e.id, bankId) as { updated_at: string } | undefined;
    if (!row || row.updated_at !== e.updatedAt) throw new CairnError('conflict', `observation ${e.id} changed since it was read`);
  }
}

/** Applies the step atomically. */
export function applyObservations(db: Db, w: ObservationWrite): void {
  db.transaction(() => {
    assertLease(db, w.workerId, w.consolidatedFactIds);
    assertUnchanged(db, w.bankId, w.expectUnchanged ?? []);
    if (w.vectors.length) checkEmbedder(db, w.bankId, w.embedder);
    for (const o of w.observations) upsertObservation(db, o);
    putVectors(db, w.bankId, w.vectors);
    const ev = prepared(
      db,
      `INSERT INTO evidence (observation_id, fact_id, bank_id, role, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(observation_id, fact_id) DO UPDATE SET role = excluded.role`,
    );
    for (const e of w.evidence) ev.run(e.observationId, e.factId, w.bankId, e.role, e.createdAt);
    const rev = prepared(
      db,
      'INSERT INTO observation_revisions (id, bank_id, observation_id, old_text, new_text, fact_ids, reason, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const r of w.revisions) rev.run(r.id, w.bankId, r.observationId, r.oldText, r.newText, json(r.factIds), r.reason, r.at);
    const sup = prepared(
      db,
      `UPDATE facts SET status = 'superseded', superseded_by = ?, superseded_at = ?, valid_to = coalesce(valid_to, ?), updated_at = ?
       WHERE id = ? AND bank_id = ?`,
    );
    for (const s of w.supersede) sup.run(s.by, s.at, s.validTo ?? s.at, s.at, s.factId, w.bankId);
    for (const id of w.removeObservationIds)
      prepared(db, `DELETE FROM facts WHERE id = ? AND bank_id = ? AND kind = 'observation'`).run(id, w.bankId);
    const now = nowIso();
    const done = prepared(
      db,
      'UPDATE facts SET consolidated_at = ?, claim_worker = NULL, claim_until = NULL, last_error = NULL WHERE id = ? AND bank_id = ?',
    );
    for (const id of w.consolidatedFactIds) done.run(now, id, w.bankId);
    syncKeywordIndexes(db);
  }).immediate();
}

export function failClaim(
  db: Db,
  bankId: string,
  workerId: string,
  factIds: string[],
  error: string,
  maxAttempts: number,
  retryAfterMs: number,
): void {
  db.transaction(() => {
    const next = new Date(Date.now() + retryAfterMs).toISOString();
    for (const id of factIds) {
      prepared(
        db,
        `UPDATE facts SET attempts = attempts + 1, last_error = ?, claim_worker = NULL, claim_until = NULL, next_attempt_at = ?,
           dead = CASE WHEN attempts + 1 >= ? THEN 1 ELSE 0 END
         WHERE id = ? AND bank_id = ? AND claim_worker = ?`,
      ).run(error, next, maxAttempts, id, bankId, workerId);
    }
  }).immediate();
}

export function deadLetters(db: Db, bankId: string): DeadLetter[] {
  const rows = prepared(
    db,
    `SELECT id, bank_id, last_error, attempts, updated_at, next_attempt_at FROM facts WHERE ${DEAD} ORDER BY rid`,
  ).all(bankId) as Array<{
    id: string;
    bank_id: string;
    last_error: string | null;
    attempts: number;
    next_attempt_at: string | null;
    updated_at: string;
  }>;
  return rows.map((r) => ({
    factId: r.id,
    bankId: r.bank_id,
    error: r.last_error ?? '',
    attempts: r.attempts,
    failedAt: r.next_attempt_at ?? r.updated_at,
  }));
}

export function retryDead(db: Db, bankId: string, factIds?: string[]): number {
  const base = `UPDATE facts SET dead = 0, attempts = 0, next_attempt_at = NULL WHERE ${DEAD}`;
  if (!factIds?.length) return prepared(db, base).run(bankId).changes;
  return prepared(db, `${base} AND id IN (${placeholders(factIds.length)})`).run(bankId, ...factIds).changes;
}

export function backlog(db: Db, bankId: string): { waiting: number; oldestWaitingAt: string | null; failed: number; consolidated: number } {
  // Counted from the index alone; the oldest is the head of the queue (claims take facts in the order written), read
  // from one row rather than every waiting fact's.
  const w = prepared(
    db,
    `SELECT count(*) AS n, (SELECT created_at FROM facts WHERE ${WAITING_NAMED} ORDER BY rid LIMIT 1) AS oldest FROM facts WHERE ${WAITING_NAMED}`,
  ).get({ bankId }) as { n: number; oldest: string | null };
  const d = prepared(db, `SELECT count(*) AS n FROM facts WHERE ${DEAD}`).get(bankId) as { n: number };
  const c = prepared(db, `SELECT count(*) AS n FROM facts WHERE bank_id = ? AND kind != 'observation' AND consolidated_at IS NOT NULL`).get(
    bankId,
  ) as { n: number };
  return { waiting: w.n, oldestWaitingAt: w.oldest, failed: d.n, consolidated: c.n };
}

export function hasWaiting(db: Db, bankId: string): boolean {
  return (prepared(db, `SELECT EXISTS (SELECT 1 FROM facts WHERE ${WAITING}) AS w`).get(bankId) as { w: number }).w === 1;
}

export function banksWithBacklog(db: Db): string[] {
  return (
    prepared(
      db,
      `SELECT DISTINCT bank_id AS id FROM facts WHERE kind != 'observation' AND consolidated_at IS NULL AND dead = 0`,
    ).all() as Array<{ id: string }>
  ).map((r) => r.id);
}
