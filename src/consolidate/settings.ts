// Worker settings from the environment (every one optional, with the defaults of DEFAULT_WORKER_OPTIONS):
//   CAIRN_CONSOLIDATION_BATCH_SIZE    related observations loaded per batch (default 50)
//   CAIRN_CONSOLIDATION_CLAIM_SIZE    facts claimed per batch (default 16)
//   CAIRN_CONSOLIDATION_LEASE_MS      lease on claimed facts, the bound on a batch that hangs (default 120000)
//   CAIRN_WORKER_HEARTBEAT_MS         how often the worker beats (default 2000)
//   CAIRN_WORKER_DEAD_AFTER_MS        silence after which a worker is presumed dead and its claims taken over (default 10000)
//   CAIRN_CONSOLIDATION_MAX_ATTEMPTS  attempts before a fact is dead-lettered (default 5)
//   CAIRN_CONSOLIDATION_BACKOFF_MS    first retry delay, doubled per attempt (default 2000)
//   CAIRN_CONSOLIDATION_POLL_MS       idle polling interval (default 1000)
//   CAIRN_WORKER_ID                   worker id (default host-pid-random)
import { DEFAULT_LIVENESS } from '../liveness.ts';
import { DEFAULT_CONTEXT_OPTIONS } from './context.ts';
import type { WorkerOptions } from './worker.ts';

function int(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} '${raw}' must be an integer >= ${min}`);
  return n;
}

export function workerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<WorkerOptions> {
  const out: Partial<WorkerOptions> = {};
  const batchSize = int(env, 'CAIRN_CONSOLIDATION_BATCH_SIZE', 1);
  if (batchSize !== undefined) out.context = { ...DEFAULT_CONTEXT_OPTIONS, batchSize };
  const claimSize = int(env, 'CAIRN_CONSOLIDATION_CLAIM_SIZE', 1);
  if (claimSize !== undefined) out.claimSize = claimSize;
  const leaseMs = int(env, 'CAIRN_CONSOLIDATION_LEASE_MS', 100);
  if (leaseMs !== undefined) out.leaseMs = leaseMs;
  const intervalMs = int(env, 'CAIRN_WORKER_HEARTBEAT_MS', 10);
  const deadAfterMs = int(env, 'CAIRN_WORKER_DEAD_AFTER_MS', 20);
  if (intervalMs !== undefined || deadAfterMs !== undefined) {
    const liveness = { intervalMs: intervalMs ?? DEFAULT_LIVENESS.intervalMs, deadAfterMs: deadAfterMs ?? DEFAULT_LIVENESS.deadAfterMs };
    if (liveness.deadAfterMs <= liveness.intervalMs)
      throw new Error(`CAIRN_WORKER_DEAD_AFTER_MS (${liveness.deadAfterMs}) must be longer than CAIRN_WORKER_HEARTBEAT_MS (${liveness.intervalMs})`);
    out.liveness = liveness;
  }
  const maxAttempts = int(env, 'CAIRN_CONSOLIDATION_MAX_ATTEMPTS', 1);
  if (maxAttempts !== undefined) out.maxAttempts = maxAttempts;
  const backoffMs = int(env, 'CAIRN_CONSOLIDATION_BACKOFF_MS', 0);
  if (backoffMs !== undefined) out.backoffMs = backoffMs;
  const pollMs = int(env, 'CAIRN_CONSOLIDATION_POLL_MS', 10);
  if (pollMs !== undefined) out.pollMs = pollMs;
  const id = env.CAIRN_WORKER_ID?.trim();
  if (id) out.workerId = id;
  return out;
}
