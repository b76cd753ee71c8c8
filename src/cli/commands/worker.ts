// `cairn worker`: the consolidation worker as its own process, on the same store as the API (whose embedded
// worker is then turned off with CAIRN_WORKER=off, though running both is safe: claims never overlap).
import { compose } from '../../compose.ts';
import type { Engine } from '../../engine.ts';
import type { Config } from '../../config/index.ts';
import { log } from '../../log.ts';
import type { Consolidator } from '../../consolidate/consolidator.ts';
import { workerOptions } from '../../consolidate/settings.ts';
import { ConsolidationWorker, type WorkerOptions } from '../../consolidate/worker.ts';

export interface RunningWorker {
  worker: ConsolidationWorker;
  /** Stops the worker after its batch in progress and closes the store. */
  stop(): Promise<void>;
}

export async function runWorker(
  config: Config,
  overrides: Partial<WorkerOptions> = {},
  consolidator?: Consolidator,
): Promise<RunningWorker> {
  const { engine, worker } = await compose(config, { startWorker: false });
  if (consolidator || Object.keys(overrides).length) {
    // Tests and callers may swap the consolidator or tune the loop; the composed worker is then not started.
    const custom = new ConsolidationWorker(
      { store: engine.deps.store, embedder: engine.deps.embedder, consolidator: consolidator ?? worker.deps.consolidator },
      { ...workerOptions(config.consolidate), ...overrides },
    );
    return start(custom, engine);
  }
  return start(worker, engine);
}

function start(worker: ConsolidationWorker, engine: Engine): RunningWorker {
  worker.start();
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= worker.stop().then(() => engine.close());
    return stopping;
  };
  const onSignal = (): void => {
    log.info(`consolidation worker ${worker.id} stopping`);
    void stop().then(() => process.exit(0));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { worker, stop };
}
