// Cypher for the consolidation queue, which is the facts' own state (`queued` until consolidated, claim fields,
// attempts, dead letters), for the heartbeats of the processes holding claims, and for applying a consolidation
// result. Claims and applies run in a transaction that
// first takes the bank's write lock (statements/records.ts lockBank), so the reads that decide what to claim and
// whether a lease still holds see every claim committed before them: two workers never claim the same fact.
import type { Evidence, Observation, ObservationRevision } from '../../../core/index.ts';
import type { Heartbeat } from '../../ports.ts';
import { visible } from '../filter.ts';
import { keywordNames } from '../keyword-names.ts';
import { factContent, factLifecycle, revisionProps } from '../props.ts';
import { cypher, floats, int, type Statement } from '../statement.ts';
import { SEQUENCED_ROWS } from './items.ts';

const WAITING = `f.queued = true AND f.dead = false AND ${visible('f')}`;

/** The claim on `f` holds at $now: its lease runs and its holder is not known to have stopped beating. */
const HOLDS = `f.claimWorker IS NOT NULL AND f.claimUntil >= $now
  AND NOT EXISTS { MATCH (h:Heartbeat {id: f.claimWorker}) WHERE h.aliveUntil < $now }`;

/** A live claim another worker holds in the bank (one worker per bank at a time). */
export const otherLiveLease = (bankId: string, workerId: string, now: string): Statement =>
  cypher(
    `MATCH (f:Fact {bankId: $bankId, queued: true})
     WHERE f.dead = false AND f.claimWorker <> $workerId AND ${HOLDS}
     RETURN f.id AS id LIMIT 1`,
    { bankId, workerId, now },
  );

/** Claims up to `limit` waiting facts, oldest first, whose earlier claim (if any) lapsed and whose retry is due. */
export const claimFacts = (bankId: string, workerId: string, limit: number, now: string, leaseUntil: string): Statement =>
  cypher(
    `MATCH (f:Fact {bankId: $bankId, queued: true})
     WHERE f.seq IS NOT NULL AND ${WAITING} AND NOT (${HOLDS}) AND (f.nextAttemptAt IS NULL OR f.nextAttemptAt <= $now)
     WITH f ORDER BY f.seq LIMIT $limit
     SET f.claimWorker = $workerId, f.claimUntil = $leaseUntil
     RETURN f.id AS id, f.seq AS seq ORDER BY seq`,
    { bankId, workerId, now, leaseUntil, limit: int(limit) },
  );

/** Why the bank's waiting facts wait: how many are ready, the claims per holder, the facts waiting for a retry. */
export const queueDetail = (bankId: string, now: string): Statement[] => [
  cypher(
    `MATCH (f:Fact {bankId: $bankId, queued: true}) WHERE ${WAITING} AND NOT (${HOLDS}) AND (f.nextAttemptAt IS NULL OR f.nextAttemptAt <= $now)
     RETURN count(f) AS ready`,
    { bankId, now },
  ),
  cypher(
    `MATCH (f:Fact {bankId: $bankId, queued: true}) WHERE ${WAITING} AND f.claimWorker IS NOT NULL
     RETURN f.claimWorker AS workerId, count(f) AS facts, max(f.claimUntil) AS leaseUntil, min(f.seq) AS first ORDER BY first`,
    { bankId },
  ),
  cypher(
    `MATCH (f:Fact {bankId: $bankId, queued: true}) WHERE ${WAITING} AND f.claimWorker IS NULL AND f.nextAttemptAt > $now
     WITH f ORDER BY f.nextAttemptAt, f.seq
     RETURN count(f) AS facts, head(collect(f.nextAttemptAt)) AS nextAttemptAt, head(collect(f.lastError)) AS lastError`,
    { bankId, now },
  ),
];

/** Records a beat (the holder's heartbeat node is created or replaced). */
export const beat = (h: Heartbeat): Statement =>
  cypher(
    `MERGE (h:Heartbeat {id: $id})
     SET h.role = $role, h.host = $host, h.pid = $pid, h.startedAt = $startedAt, h.beatAt = $beatAt, h.aliveUntil = $aliveUntil`,
    { id: h.id, role: h.role, host: h.host, pid: int(h.pid), startedAt: h.startedAt, beatAt: h.beatAt, aliveUntil: h.aliveUntil },
  );

export const heartbeats = (): Statement => cypher('MATCH (h:Heartbeat) RETURN h {.*} AS heartbeat ORDER BY heartbeat.id');

/** Forgets the holder unless it beat after $beatAt (null: whatever its last beat); returns a row when it did. */
export const retireHeartbeat = (id: string, beatAt: string | null): Statement =>
  cypher(
    `OPTIONAL MATCH (h:Heartbeat {id: $id})
     WITH h WHERE h IS NULL OR $beatAt IS NULL OR h.beatAt = $beatAt
     DETACH DELETE h
     RETURN true AS retired`,
    { id, beatAt },
  );

/** Releases the claims a forgotten holder left on waiting facts. */
export const releaseClaims = (workerId: string): Statement =>
  cypher(
    `MATCH (f:Fact {queued: true}) WHERE f.claimWorker = $workerId
     REMOVE f.claimWorker, f.claimUntil`,
    { workerId },
  );

/** How many of the facts the worker still holds, unconsolidated. */
export const heldFacts = (workerId: string, factIds: string[]): Statement =>
  cypher('MATCH (f:Fact) WHERE f.id IN $factIds AND f.claimWorker = $workerId AND f.consolidatedAt IS NULL RETURN count(f) AS held', {
    workerId,
    factIds,
  });

/** The current updatedAt of observations (null when gone), for the optimistic check of a consolidation result. */
export const observationVersions = (bankId: string, ids: string[]): Statement =>
  cypher(
    `UNWIND $ids AS id
     OPTIONAL MATCH (o:Fact {id: id}) WHERE o.bankId = $bankId AND o.kind = 'observation'
     RETURN id, o.updatedAt AS updatedAt`,
    { bankId, ids },
  );

export interface ObservationRow {
  observation: Observation;
  vector: Float32Array | null;
}

/**
 * New observations are created (after the bank's facts in its sequence); existing ones get the new text, times (when
 * it happened and when it was last said), tags, validity, metadata and entities. An observation with a vector keeps it
 * in `pendingVector` until Qdrant has it; a new one stays invisible (pending) until then.
 */
export function upsertObservations(bankId: string, rows: ObservationRow[], now: string): Statement {
  return cypher(
    `${SEQUENCED_ROWS}
     MERGE (o:Fact {id: row.content.id})
     ON CREATE SET o += row.content, o += row.lifecycle, o.seq = seq, o.pending = row.vector IS NOT NULL
     ON MATCH SET o.text = row.content.text, o.occurredStart = row.content.occurredStart, o.occurredEnd = row.content.occurredEnd,
         o.mentionedAt = row.content.mentionedAt,
         o.tags = row.content.tags, o.validFrom = row.content.validFrom, o.validTo = row.lifecycle.validTo,
         o.metadata = row.content.metadata, o.updatedAt = row.content.updatedAt, o.entityIds = row.content.entityIds,
         o.timeStartMs = row.content.timeStartMs, o.timeEndMs = row.content.timeEndMs
     SET o:$($factLabel), o.pendingVector = row.vector, o.pendingSince = CASE WHEN row.vector IS NULL THEN o.pendingSince ELSE $now END,
         o.noVector = CASE WHEN row.vector IS NULL THEN o.noVector ELSE null END`,
    {
      bankId,
      rows: rows.map((r) => {
        const lifecycle = factLifecycle(r.observation);
        // An observation is born consolidated (it is the result of consolidation).
        lifecycle.consolidatedAt = r.observation.consolidatedAt ?? r.observation.createdAt;
        return { content: factContent(r.observation), lifecycle, vector: r.vector ? floats(r.vector) : null };
      }),
      factLabel: keywordNames(bankId).factLabel,
      now,
    },
  );
}

/** Evidence links; a repeated link keeps its creation time and takes the new role. */
export const upsertEvidence = (bankId: string, evidence: Evidence[]): Statement =>
  cypher(
    `UNWIND $evidence AS e
     MATCH (o:Fact {id: e.observationId}) WHERE o.bankId = $bankId
     MATCH (f:Fact {id: e.factId}) WHERE f.bankId = $bankId
     MERGE (o)-[r:EVIDENCE]->(f)
     ON CREATE SET r.createdAt = e.createdAt, r.bankId = $bankId
     SET r.role = e.role`,
    { bankId, evidence: evidence.map((e) => ({ observationId: e.observationId, factId: e.factId, role: e.role, createdAt: e.createdAt })) },
  );

/** Revisions, in the order given (their sequence breaks ties between revisions of the same instant). */
export const createRevisions = (bankId: string, revisions: ObservationRevision[]): Statement =>
  cypher(
    `MATCH (b:Bank {id: $bankId})
     WITH b, coalesce(b.revisionSeq, 0) AS base
     SET b.revisionSeq = base + size($revisions)
     WITH base
     UNWIND range(0, size($revisions) - 1) AS i
     WITH base + i + 1 AS seq, $revisions[i] AS r
     MERGE (x:Revision {id: r.id})
     ON CREATE SET x += r, x.seq = seq`,
    { bankId, revisions: revisions.map((r) => revisionProps(bankId, r)) },
  );

export const supersede = (bankId: string, items: Array<{ factId: string; by: string; at: string; validTo?: string }>): Statement =>
  cypher(
    `UNWIND $items AS s
     MATCH (f:Fact {id: s.factId}) WHERE f.bankId = $bankId
     SET f.status = 'superseded', f.supersededBy = s.by, f.supersededAt = s.at, f.validTo = coalesce(f.validTo, s.validTo), f.updatedAt = s.at`,
    { bankId, items: items.map((s) => ({ factId: s.factId, by: s.by, at: s.at, validTo: s.validTo ?? s.at })) },
  );

/** Removes observations (their evidence goes with them); returns the ids removed. */
export const removeObservations = (bankId: string, ids: string[]): Statement =>
  cypher(
    `MATCH (o:Fact) WHERE o.id IN $ids AND o.bankId = $bankId AND o.kind = 'observation'
     WITH o, o.id AS id DETACH DELETE o RETURN id`,
    { bankId, ids },
  );

/** The facts leave the queue: consolidated now, claim released. */
export const markConsolidated = (bankId: string, factIds: string[], now: string): Statement =>
  cypher(
    `UNWIND $factIds AS id MATCH (f:Fact {id: id}) WHERE f.bankId = $bankId
     SET f.consolidatedAt = $now, f.queued = false REMOVE f.claimWorker, f.claimUntil, f.lastError`,
    { bankId, factIds, now },
  );

/** Makes observations' vectors final once Qdrant has them: new observations become visible. */
export const activateObservations = (bankId: string, ids: string[]): Statement =>
  cypher(
    `UNWIND $ids AS id MATCH (o:Fact {id: id}) WHERE o.bankId = $bankId
     SET o.pending = false REMOVE o.pendingVector, o.pendingSince`,
    { bankId, ids },
  );

/** A failed attempt: the claim is released, a retry is scheduled; at maxAttempts the fact is a dead letter. */
export const failClaim = (
  bankId: string,
  workerId: string,
  factIds: string[],
  error: string,
  maxAttempts: number,
  nextAttemptAt: string,
): Statement =>
  cypher(
    `UNWIND $factIds AS id MATCH (f:Fact {id: id}) WHERE f.bankId = $bankId AND f.claimWorker = $workerId
     SET f.attempts = coalesce(f.attempts, 0) + 1, f.lastError = $error, f.nextAttemptAt = $nextAttemptAt
     REMOVE f.claimWorker, f.claimUntil
     SET f.dead = f.attempts >= $maxAttempts`,
    { bankId, workerId, factIds, error, maxAttempts, nextAttemptAt },
  );

export const deadLetters = (bankId: string): Statement =>
  cypher('MATCH (f:Fact {bankId: $bankId, dead: true}) RETURN f {.*} AS fact ORDER BY fact.seq', { bankId });

/** Dead letters go back to the queue with fresh attempts; returns how many. */
export const retryDeadLetters = (bankId: string, factIds: string[] | null): Statement =>
  cypher(
    `MATCH (f:Fact {bankId: $bankId, dead: true}) WHERE $factIds IS NULL OR f.id IN $factIds
     SET f.dead = false, f.attempts = 0 REMOVE f.nextAttemptAt
     RETURN count(f) AS retried`,
    { bankId, factIds },
  );

/** The queue's counts: waiting (with the oldest), dead letters, consolidated. */
export const backlog = (bankId: string): Statement[] => [
  cypher(
    `MATCH (f:Fact {bankId: $bankId, queued: true}) WHERE ${WAITING}
     RETURN count(f) AS waiting, min(f.createdAt) AS oldestWaitingAt`,
    { bankId },
  ),
  cypher('MATCH (f:Fact {bankId: $bankId, dead: true}) RETURN count(f) AS failed', { bankId }),
  cypher(
    `MATCH (f:Fact {bankId: $bankId}) WHERE f.kind <> 'observation' AND f.consolidatedAt IS NOT NULL
     RETURN count(f) AS consolidated`,
    { bankId },
  ),
];

export const banksWithBacklog = (): Statement =>
  cypher(`MATCH (f:Fact {queued: true}) WHERE ${WAITING} RETURN DISTINCT f.bankId AS bankId`);
