// The consolidation status of a bank: its backlog (size, age of the oldest waiting fact), what is done, the
// dead letters, this process's worker throughput and last error, and why the waiting facts wait: who holds claims
// on them (with that worker's heartbeat, so a dead holder shows as dead), which wait for a retry after an error,
// whether any worker loop is alive to take the rest, and whether this process can consolidate the bank at all.
import type { Bank } from '../core/index.ts';
import { holderState } from '../liveness.ts';
import type { AuditReads, ConsolidationQueue, Heartbeat, Heartbeats } from '../store/index.ts';
import type { RateSnapshot } from './rate.ts';
import type { ConsolidationWorker } from './worker.ts';

export interface ClaimStatus {
  workerId: string;
  facts: number;
  leaseUntil: string;
  /** The holder's last beat, null when it has none (it never beat, or it was forgotten). */
  heartbeatAt: string | null;
  heartbeatAgeSeconds: number | null;
  /** alive: it holds the facts (and the bank); dead: presumed dead, the next claim takes its facts over; expired: its lease ended. */
  holder: 'alive' | 'dead' | 'expired';
  /** Why it is presumed dead. */
  gone: string | null;
}

export interface WorkerStatus {
  id: string;
  role: string;
  host: string;
  pid: number;
  heartbeatAgeSeconds: number;
  alive: boolean;
}

export interface ConsolidationStatus {
  bankId: string;
  /** Facts waiting to be consolidated (dead letters not counted). */
  backlog: number;
  oldestWaitingAt: string | null;
  oldestWaitingAgeSeconds: number | null;
  consolidated: number;
  /** Facts on the dead-letter list. */
  failed: number;
  observations: number;
  /** Why the backlog waits. */
  waiting: {
    /** Facts a worker may claim now. */
    ready: number;
    claims: ClaimStatus[];
    /** Facts that failed and wait for their next attempt, the soonest with its error. */
    retrying: { facts: number; nextAttemptAt: string | null; lastError: string | null };
    /** One sentence per group of waiting facts, null when nothing waits. */
    reason: string | null;
  };
  /** The processes that beat for this store: consolidation loops ('worker'), API drains ('drain'), operations. */
  workers: WorkerStatus[];
  /** Throughput of this process's worker on the bank over the last minute. */
  rate: RateSnapshot;
  /** The last error of this process's worker on the bank (a restarted process knows only the stored ones: see waiting.retrying). */
  lastError: { error: string; at: string } | null;
  worker: { id: string; running: boolean; draining: boolean };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function claimStatus(c: { workerId: string; facts: number; leaseUntil: string }, beats: Map<string, Heartbeat>, now: number): ClaimStatus {
  const h = beats.get(c.workerId);
  const state = h ? holderState(h, now) : null;
  const expired = Date.parse(c.leaseUntil) < now;
  return {
    ...c,
    heartbeatAt: h?.beatAt ?? null,
    heartbeatAgeSeconds: state?.ageSeconds ?? null,
    holder: expired ? 'expired' : state && !state.alive ? 'dead' : 'alive',
    gone: state?.gone ?? null,
  };
}

/** `lapsed`: facts of claims the store already counts as ready (lease ended or heartbeat lapsed). */
function describe(
  backlog: number,
  ready: number,
  lapsed: number,
  claims: ClaimStatus[],
  retrying: ConsolidationStatus['waiting']['retrying'],
  loops: number,
  blocked: string | null,
): string | null {
  if (backlog === 0) return null;
  if (blocked) return `${plural(backlog, 'fact')} wait: ${blocked}`;
  const parts: string[] = [];
  for (const c of claims) {
    const beat = c.heartbeatAgeSeconds === null ? 'no heartbeat' : `last heartbeat ${c.heartbeatAgeSeconds} s ago`;
    if (c.holder === 'alive')
      parts.push(`${plural(c.facts, 'fact')} claimed by worker ${c.workerId} (${beat}, lease until ${c.leaseUntil})`);
    else if (c.holder === 'dead')
      parts.push(`${plural(c.facts, 'fact')} claimed by worker ${c.workerId}, presumed dead (${c.gone}): the next claim takes them over`);
    else
      parts.push(
        `${plural(c.facts, 'fact')} claimed by worker ${c.workerId}, whose lease ended at ${c.leaseUntil}: the next claim takes them over`,
      );
  }
  const holder = claims.find((c) => c.holder === 'alive');
  const free = ready - lapsed;
  if (free > 0) {
    if (holder)
      parts.push(`${plural(free, 'fact')} wait for worker ${holder.workerId} to finish its batch (one worker per bank at a time)`);
    else parts.push(`${plural(free, 'fact')} ready to claim`);
  }
  if (retrying.facts > 0)
    parts.push(
      `${plural(retrying.facts, 'fact')} wait for a retry after an error (next at ${retrying.nextAttemptAt}; error: ${retrying.lastError ?? 'unknown'})`,
    );
  if (!holder && ready > 0 && loops === 0)
    parts.push('no worker loop is alive: POST /consolidate runs them in the API process, or start `cairn worker`');
  return parts.join('; ');
}

export async function consolidationStatus(
  store: ConsolidationQueue & Heartbeats & AuditReads,
  worker: ConsolidationWorker,
  bank: Bank,
  now = Date.now(),
): Promise<ConsolidationStatus> {
  const bankId = bank.id;
  const b = await store.backlog(bankId);
  const detail = await store.queueDetail(bankId);
  const beats = await store.heartbeats();
  const observations = (await store.listFacts(bankId, { kinds: ['observation'], limit: 1, offset: 0 })).total;
  const byId = new Map(beats.map((h) => [h.id, h]));
  const claims = detail.claims.map((c) => claimStatus(c, byId, now));
  const workers = beats.map((h) => {
    const state = holderState(h, now);
    return { id: h.id, role: h.role, host: h.host, pid: h.pid, heartbeatAgeSeconds: state.ageSeconds, alive: state.alive };
  });
  const loops = workers.filter((w) => w.alive && w.role === 'worker').length;
  const lapsed = detail.claims
    .filter((c) => {
      const h = byId.get(c.workerId);
      return Date.parse(c.leaseUntil) < now || (h !== undefined && Date.parse(h.aliveUntil) < now);
    })
    .reduce((n, c) => n + c.facts, 0);
  return {
    bankId,
    backlog: b.waiting,
    oldestWaitingAt: b.oldestWaitingAt,
    oldestWaitingAgeSeconds: b.oldestWaitingAt ? Math.max(0, Math.round((now - Date.parse(b.oldestWaitingAt)) / 1000)) : null,
    consolidated: b.consolidated,
    failed: b.failed,
    observations,
    waiting: {
      ready: detail.ready,
      claims,
      retrying: detail.retrying,
      reason: describe(b.waiting, detail.ready, lapsed, claims, detail.retrying, loops, worker.embedderMismatch(bank)),
    },
    workers,
    rate: worker.meter.snapshot(bankId, now),
    lastError: worker.lastErrors.get(bankId) ?? null,
    worker: { id: worker.loopId, running: worker.running, draining: worker.isDraining(bankId) },
  };
}
