// The consolidation queue on the Neo4j side. Claims and consolidation results run under the bank's write lock,
// so a claim sees every claim committed before it (two workers never hold the same fact) and a result is
// applied only while its worker still holds every fact it consolidated. A result's observation vectors are
// staged like a retained item's: new observations stay invisible until Qdrant has their vectors.
import { CairnError } from '../../core/index.ts';
import type { Claim, DeadLetter, Heartbeat, ObservationWrite, QueueDetail } from '../ports.ts';
import type { PointSource } from '../qdrant/points.ts';
import type { Neo4jConnection } from './connection.ts';
import { propsOf, toDeadLetter, toHeartbeat } from './rows.ts';
import * as items from './statements/items.ts';
import * as q from './statements/queue.ts';
import { claimEmbedder, lock, stageVectorsOfStoredFacts } from './writes.ts';

export async function claim(
  db: Neo4jConnection,
  bankId: string,
  workerId: string,
  limit: number,
  leaseMs: number,
  now: Date,
): Promise<Claim | null> {
  const at = now.toISOString();
  return db.writeTx(async (tx) => {
    try {
      await lock(tx, bankId, at);
    } catch (e) {
      if (e instanceof CairnError && e.code === 'not_found') return null;
      throw e;
    }
    // One worker per bank at a time: another worker's live lease makes this claim wait.
    if ((await tx.run(q.otherLiveLease(bankId, workerId, at))).length) return null;
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
    const rows = await tx.run(q.claimFacts(bankId, workerId, limit, at, leaseUntil));
    if (rows.length === 0) return null;
    return { workerId, factIds: rows.map((r) => String(r.id)), leaseUntil };
  });
}

export interface StagedObservations {
  /** Facts whose vectors wait for Qdrant, with what their points need. */
  sources: PointSource[];
  /** Observations removed: their points must go. */
  removedIds: string[];
  /** The bank's embedder after the write, null while it has no vectors. */
  bankEmbedder: string | null;
}

export async function stageObservations(db: Neo4jConnection, w: ObservationWrite, now: string): Promise<StagedObservations> {
  const vectorOf = new Map(w.vectors.map((v) => [v.id, v.vector]));
  const observationIds = new Set(w.observations.map((o) => o.id));
  const others = w.vectors.filter((v) => !observationIds.has(v.id));
  return db.writeTx(async (tx) => {
    const current = await lock(tx, w.bankId, now);
    const held = [...new Set(w.consolidatedFactIds)];
    if (held.length) {
      const [row] = await tx.run(q.heldFacts(w.workerId, held));
      const n = Number(row?.held ?? 0);
      if (n !== held.length) throw new CairnError('conflict', `worker ${w.workerId} lost its lease on ${held.length - n} fact(s)`);
    }
    if (w.expectUnchanged?.length) {
      const versions = await tx.run(
        q.observationVersions(
          w.bankId,
          w.expectUnchanged.map((e) => e.id),
        ),
      );
      const byId = new Map(
        versions.map((r) => [String(r.id), r.updatedAt === null || r.updatedAt === undefined ? null : String(r.updatedAt)]),
      );
      for (const e of w.expectUnchanged)
        if (byId.get(e.id) !== e.updatedAt) throw new CairnError('conflict', `observation ${e.id} changed since it was read`);
    }
    if (w.vectors.length) await claimEmbedder(tx, w.bankId, current, w.embedder);
    if (w.observations.length) {
      await tx.run(
        q.upsertObservations(
          w.bankId,
          w.observations.map((observation) => ({ observation, vector: vectorOf.get(observation.id) ?? null })),
          now,
        ),
      );
      for (const st of items.replaceMentions(w.bankId, w.observations)) await tx.run(st);
    }
    const sources: PointSource[] = [
      ...w.observations
        .filter((o) => vectorOf.has(o.id))
        .map((o) => ({ id: o.id, bankId: o.bankId, kind: o.kind, tags: o.tags, createdAt: o.createdAt })),
      ...(await stageVectorsOfStoredFacts(tx, w.bankId, others, now)),
    ];
    if (w.evidence.length) await tx.run(q.upsertEvidence(w.bankId, w.evidence));
    if (w.revisions.length) await tx.run(q.createRevisions(w.bankId, w.revisions));
    if (w.supersede.length) await tx.run(q.supersede(w.bankId, w.supersede));
    const removedIds = w.removeObservationIds.length
      ? (await tx.run(q.removeObservations(w.bankId, w.removeObservationIds))).map((r) => String(r.id))
      : [];
    if (w.consolidatedFactIds.length) await tx.run(q.markConsolidated(w.bankId, held, now));
    if (removedIds.length) for (const st of items.pruneEntities(w.bankId)) await tx.run(st);
    return { sources, removedIds, bankEmbedder: w.vectors.length ? w.embedder : current };
  });
}

export async function failClaim(
  db: Neo4jConnection,
  bankId: string,
  workerId: string,
  factIds: string[],
  error: string,
  maxAttempts: number,
  retryAfterMs: number,
): Promise<void> {
  const next = new Date(Date.now() + retryAfterMs).toISOString();
  await db.write(q.failClaim(bankId, workerId, factIds, error, maxAttempts, next));
}

export async function deadLetters(db: Neo4jConnection, bankId: string): Promise<DeadLetter[]> {
  return (await db.read(q.deadLetters(bankId))).map((r) => toDeadLetter(propsOf(r, 'fact')));
}

export async function retryDeadLetters(db: Neo4jConnection, bankId: string, factIds?: string[]): Promise<number> {
  const [row] = await db.write(q.retryDeadLetters(bankId, factIds?.length ? factIds : null));
  return Number(row?.retried ?? 0);
}

export async function backlog(
  db: Neo4jConnection,
  bankId: string,
): Promise<{ waiting: number; oldestWaitingAt: string | null; failed: number; consolidated: number }> {
  return db.readTx(async (tx) => {
    const [waiting, failed, consolidated] = q.backlog(bankId);
    const [w] = await tx.run(waiting);
    const [f] = await tx.run(failed);
    const [c] = await tx.run(consolidated);
    return {
      waiting: Number(w?.waiting ?? 0),
      oldestWaitingAt: w?.oldestWaitingAt === null || w?.oldestWaitingAt === undefined ? null : String(w.oldestWaitingAt),
      failed: Number(f?.failed ?? 0),
      consolidated: Number(c?.consolidated ?? 0),
    };
  });
}

export async function banksWithBacklog(db: Neo4jConnection): Promise<string[]> {
  return (await db.read(q.banksWithBacklog())).map((r) => String(r.bankId));
}

export async function queueDetail(db: Neo4jConnection, bankId: string, now: string): Promise<QueueDetail> {
  return db.readTx(async (tx) => {
    const [ready, claims, retrying] = q.queueDetail(bankId, now);
    const [r] = await tx.run(ready);
    const held = await tx.run(claims);
    const [w] = await tx.run(retrying);
    const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
    return {
      ready: Number(r?.ready ?? 0),
      claims: held.map((c) => ({ workerId: String(c.workerId), facts: Number(c.facts), leaseUntil: String(c.leaseUntil) })),
      retrying: { facts: Number(w?.facts ?? 0), nextAttemptAt: text(w?.nextAttemptAt), lastError: text(w?.lastError) },
    };
  });
}

export async function beat(db: Neo4jConnection, h: Heartbeat): Promise<void> {
  await db.write(q.beat(h));
}

export async function heartbeats(db: Neo4jConnection): Promise<Heartbeat[]> {
  return (await db.read(q.heartbeats())).map((r) => toHeartbeat(propsOf(r, 'heartbeat')));
}

/** Forgets the holder (unless it beat since `beatAt`) and releases its claims, in one transaction. */
export async function retireHeartbeat(db: Neo4jConnection, id: string, beatAt: string | null): Promise<boolean> {
  return db.writeTx(async (tx) => {
    if ((await tx.run(q.retireHeartbeat(id, beatAt))).length === 0) return false;
    await tx.run(q.releaseClaims(id));
    return true;
  });
}
