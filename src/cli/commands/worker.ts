// `cairn worker`: the consolidation worker as its own process, on the same store as the API (whose embedded
// worker is then turned off with CAIRN_WORKER=off, though running both is safe: claims never overlap).
import { compose } from '../../compose.ts';
import type { Config } from '../../config/index.ts';
import { log } from '../../log.ts';
import type { Consolidator, ConsolidationWorker, WorkerOptions } from '../../consolidate/index.ts';

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
  // Tests and callers may swap the consolidator or tune the loop.
  const { worker, shutdown } = await compose(config, {
    startWorker: false,
    worker: overrides,
    ...(consolidator ? { consolidator: () => consolidator } : {}),
  });
  worker.start();
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= shutdown();
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
