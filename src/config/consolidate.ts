// Where and how the consolidation worker runs (every batch setting optional: unset keeps the worker's default,
// consolidate/worker.ts DEFAULT_WORKER_OPTIONS).
//   CAIRN_WORKER                      on (default: in the API process, on a thread of its own) | main (on the API's
//                                     event loop) | off (not in the API process; run `cairn worker`)
//   CAIRN_WORKER_NICE                 how far that thread lowers its scheduling priority, 0-19 (default 10, Linux)
//   CAIRN_CONSOLIDATION_BATCH_SIZE    related observations loaded per batch (default 50)
//   CAIRN_CONSOLIDATION_CLAIM_SIZE    facts claimed per batch (default 16)
//   CAIRN_CONSOLIDATION_LEASE_MS      lease on claimed facts, the bound on a batch that hangs (default 120000)
//   CAIRN_WORKER_HEARTBEAT_MS         how often the worker beats (default 2000)
//   CAIRN_WORKER_DEAD_AFTER_MS        silence after which a worker is presumed dead and its claims taken over (default 10000)
//   CAIRN_CONSOLIDATION_MAX_ATTEMPTS  attempts before a fact is dead-lettered (default 5)
//   CAIRN_CONSOLIDATION_BACKOFF_MS    first retry delay, doubled per attempt (default 2000)
//   CAIRN_CONSOLIDATION_POLL_MS       idle polling interval (default 1000)
//   CAIRN_WORKER_ID                   worker id (default host-pid-random)
import { z } from 'zod';
import { DEFAULT_LIVENESS } from '../liveness.ts';
import { integer, oneOf, section, text } from './variables.ts';

export interface ConsolidateConfig {
  /** Run the consolidation worker inside the API process (CAIRN_WORKER on or main). */
  embeddedWorker: boolean;
  /** Run that worker on a thread of its own (on) rather than on the API's event loop (main). */
  workerThread: boolean;
  /** How far the worker thread lowers its scheduling priority (nice 0-19, Linux). */
  workerNice: number;
  batchSize: number | undefined;
  claimSize: number | undefined;
  leaseMs: number | undefined;
  heartbeatMs: number | undefined;
  deadAfterMs: number | undefined;
  maxAttempts: number | undefined;
  backoffMs: number | undefined;
  pollMs: number | undefined;
  workerId: string | undefined;
}

export const CONSOLIDATE = section(
  z
    .object({
      CAIRN_WORKER: oneOf(['on', 'off', 'main'], 'on, off or main'),
      CAIRN_WORKER_NICE: integer(0, 19),
      CAIRN_CONSOLIDATION_BATCH_SIZE: integer(1),
      CAIRN_CONSOLIDATION_CLAIM_SIZE: integer(1),
      CAIRN_CONSOLIDATION_LEASE_MS: integer(100),
      CAIRN_WORKER_HEARTBEAT_MS: integer(10),
      CAIRN_WORKER_DEAD_AFTER_MS: integer(20),
      CAIRN_CONSOLIDATION_MAX_ATTEMPTS: integer(1),
      CAIRN_CONSOLIDATION_BACKOFF_MS: integer(0),
      CAIRN_CONSOLIDATION_POLL_MS: integer(10),
      CAIRN_WORKER_ID: text(),
    })
    .superRefine((v, ctx) => {
      if (v.CAIRN_WORKER_HEARTBEAT_MS === undefined && v.CAIRN_WORKER_DEAD_AFTER_MS === undefined) return;
      const interval = v.CAIRN_WORKER_HEARTBEAT_MS ?? DEFAULT_LIVENESS.intervalMs;
      const deadAfter = v.CAIRN_WORKER_DEAD_AFTER_MS ?? DEFAULT_LIVENESS.deadAfterMs;
      if (deadAfter <= interval)
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `CAIRN_WORKER_DEAD_AFTER_MS (${deadAfter}) must be longer than CAIRN_WORKER_HEARTBEAT_MS (${interval})`,
        });
    }),
  (v): ConsolidateConfig => {
    const worker = v.CAIRN_WORKER ?? 'on';
    return {
      embeddedWorker: worker !== 'off',
      workerThread: worker !== 'main',
      workerNice: v.CAIRN_WORKER_NICE ?? 10,
      batchSize: v.CAIRN_CONSOLIDATION_BATCH_SIZE,
      claimSize: v.CAIRN_CONSOLIDATION_CLAIM_SIZE,
      leaseMs: v.CAIRN_CONSOLIDATION_LEASE_MS,
      heartbeatMs: v.CAIRN_WORKER_HEARTBEAT_MS,
      deadAfterMs: v.CAIRN_WORKER_DEAD_AFTER_MS,
      maxAttempts: v.CAIRN_CONSOLIDATION_MAX_ATTEMPTS,
      backoffMs: v.CAIRN_CONSOLIDATION_BACKOFF_MS,
      pollMs: v.CAIRN_CONSOLIDATION_POLL_MS,
      workerId: v.CAIRN_WORKER_ID,
    };
  },
);
