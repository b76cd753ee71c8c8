// Wires consolidation into an engine: a worker (started when it should run in this process), woken after each
// retain; deletions rebuild the observations they blanked. The composition root calls this once.
import type { Engine } from '../engine.ts';
import { log } from '../log.ts';
import type { Consolidator } from './consolidator.ts';
import { OfflineConsolidator } from './offline.ts';
import { reviseAfterDelete } from './revise.ts';
import { ConsolidationWorker, type WorkerOptions } from './worker.ts';

export interface AttachOptions {
  /** Default: the offline consolidator over the engine's embedder. */
  consolidator?: Consolidator;
  worker?: Partial<WorkerOptions>;
  /** Run the worker loop in this process (the embedded default); otherwise only drains asked for through the API run here. */
  start?: boolean;
}

export function attachConsolidation(engine: Engine, options: AttachOptions = {}): ConsolidationWorker {
  const consolidator = options.consolidator ?? new OfflineConsolidator(engine.deps.embedder);
  const worker = new ConsolidationWorker({ store: engine.deps.store, embedder: engine.deps.embedder, consolidator }, options.worker);
  engine.events.on('retained', (bankId, result) => {
    if (result.facts > 0) worker.notify(bankId);
  });
  engine.events.on('deleted', async (bankId, deleted) => {
    try {
      await reviseAfterDelete(worker.deps, bankId, deleted);
    } catch (e) {
      // The deletion itself is done and nothing deleted is readable; the worker's repair pass rebuilds later.
      log.error(`rebuilding observations of ${bankId} after a deletion failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  if (options.start) worker.start();
  return worker;
}
