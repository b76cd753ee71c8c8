// The worker's options from the configuration's consolidate section (config/consolidate.ts): only what is set
// there; the rest keeps DEFAULT_WORKER_OPTIONS.
import type { ConsolidateConfig } from '../config/index.ts';
import { DEFAULT_LIVENESS } from '../liveness.ts';
import { DEFAULT_CONTEXT_OPTIONS } from './context.ts';
import type { WorkerOptions } from './worker.ts';

export function workerOptions(config: ConsolidateConfig): Partial<WorkerOptions> {
  const out: Partial<WorkerOptions> = {};
  if (config.batchSize !== undefined) out.context = { ...DEFAULT_CONTEXT_OPTIONS, batchSize: config.batchSize };
  if (config.claimSize !== undefined) out.claimSize = config.claimSize;
  if (config.leaseMs !== undefined) out.leaseMs = config.leaseMs;
  if (config.heartbeatMs !== undefined || config.deadAfterMs !== undefined) {
    // loadConfig checked that the beat is shorter than the silence presumed death.
    out.liveness = {
      intervalMs: config.heartbeatMs ?? DEFAULT_LIVENESS.intervalMs,
      deadAfterMs: config.deadAfterMs ?? DEFAULT_LIVENESS.deadAfterMs,
    };
  }
  if (config.maxAttempts !== undefined) out.maxAttempts = config.maxAttempts;
  if (config.backoffMs !== undefined) out.backoffMs = config.backoffMs;
  if (config.pollMs !== undefined) out.pollMs = config.pollMs;
  if (config.workerId !== undefined) out.workerId = config.workerId;
  return out;
}
