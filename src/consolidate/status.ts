// The consolidation status of a bank: its backlog (size, age of the oldest waiting fact), what is done, the
// dead letters, this process's worker throughput and last error.
import type { MemoryStore } from '../store/ports.ts';
import type { RateSnapshot } from './rate.ts';
import type { ConsolidationWorker } from './worker.ts';

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
  /** Throughput of this process's worker on the bank over the last minute. */
  rate: RateSnapshot;
  lastError: { error: string; at: string } | null;
  worker: { id: string; running: boolean; draining: boolean };
}

export async function consolidationStatus(store: MemoryStore, worker: ConsolidationWorker, bankId: string, now = Date.now()): Promise<ConsolidationStatus> {
  const b = await store.backlog(bankId);
  const observations = (await store.listFacts(bankId, { kinds: ['observation'], limit: 1, offset: 0 })).total;
  return {
    bankId,
    backlog: b.waiting,
    oldestWaitingAt: b.oldestWaitingAt,
    oldestWaitingAgeSeconds: b.oldestWaitingAt ? Math.max(0, Math.round((now - Date.parse(b.oldestWaitingAt)) / 1000)) : null,
    consolidated: b.consolidated,
    failed: b.failed,
    observations,
    rate: worker.meter.snapshot(bankId, now),
    lastError: worker.lastErrors.get(bankId) ?? null,
    worker: { id: worker.id, running: worker.running, draining: worker.isDraining(bankId) },
  };
}
