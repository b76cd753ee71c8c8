// Wires consolidation into an engine: a worker (started when it should run in this process), woken after each
// retain; deletions rebuild the observations they blanked. The composition root calls this once, with the store
// and embedder it gave the engine, and hands the routes and the CLI the Consolidation it returns.
import type { Embedder } from '../embed/index.ts';
import type { Engine } from '../engine.ts';
import { log } from '../log.ts';
import { Consolidation } from './consolidation.ts';
import type { Consolidator } from './consolidator.ts';
import { OfflineConsolidator } from './offline.ts';
import { reviseAfterDelete } from './revise.ts';
import { ConsolidationWorker, type WorkerDeps, type WorkerOptions } from './worker.ts';

export interface AttachOptions {
  /** Default: the offline consolidator over the engine's embedder. */
  consolidator?: Consolidator;
  worker?: Partial<WorkerOptions>;
  /** Run the worker loop in this process (the embedded default); otherwise only drains asked for through the API run here. */
  start?: boolean;
}

/** What the worker works on: the engine's store and embedder. */
export interface ConsolidationParts {
  store: WorkerDeps['store'];
  embedder: Embedder;
}

export function attachConsolidation(engine: Engine, parts: ConsolidationParts, options: AttachOptions = {}): Consolidation {
  const { store, embedder } = parts;
  const consolidator = options.consolidator ?? new OfflineConsolidator(embedder);
  const worker = new ConsolidationWorker({ store, embedder, consolidator }, options.worker);
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
  return new Consolidation(worker, store, (bankId) => engine.requireBank(bankId));
}
