// The body of the consolidation thread (started by thread.ts): composes its own store connection, embedder and
// consolidator from the API process's configuration, lowers its own scheduling priority, runs the worker loop under
// the id the API process gave it, and answers the API process's messages (notify, drain, consolidate now, stop).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { compose } from '../compose.ts';
import type { Config } from '../config/index.ts';
import { Activity, StepAside } from '../core/index.ts';
import { log } from '../log.ts';
import type { UsageEntry } from '../llm/index.ts';
import type { BatchReport, DrainReport } from './worker.ts';

export interface ThreadData {
  config: Config;
  workerId: string;
  /** The API's activity count (core/activity.ts): each step of a batch waits while it is above zero, up to apiFirstMs. */
  activity: SharedArrayBuffer;
}

/** Each millisecond of consolidation work earns this many of waiting for a quiet API, up to API_FIRST_MS at a time:
 * under constant traffic consolidation keeps at least a quarter of its pace instead of stopping. */
const WAIT_PER_WORK = 3;
const API_FIRST_MS = 1_000;

export type ToThread = { type: 'notify'; bankId?: string } | { type: 'drain' | 'now'; id: number; bankId: string } | { type: 'stop' };

export type FromThread =
  | { type: 'ready' }
  | { type: 'batch'; report: BatchReport; lastError: { error: string; at: string } | null }
  | { type: 'llm'; entry: UsageEntry }
  | { type: 'started'; id: number; started: boolean }
  | { type: 'done'; id: number; report?: DrainReport; error?: string };

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Linux lets a thread lower its own priority by its thread id (setpriority on a tid); elsewhere it stays as it is. */
function lowerPriority(nice: number): void {
  if (nice <= 0 || process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, nice);
  } catch (e) {
    log.debug(`consolidation thread: priority left unchanged (${message(e)})`);
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('thread-entry.ts runs only as a worker thread (see consolidate/thread.ts)');
  const { config, workerId, activity: shared } = workerData as ThreadData;
  const aside = new StepAside(new Activity(shared), { waitPerWork: WAIT_PER_WORK, maxMs: API_FIRST_MS });
  const post = (m: FromThread): void => port.postMessage(m);
  lowerPriority(config.consolidate.workerNice);
  const { worker, shutdown } = await compose(config, {
    startWorker: false,
    announce: false,
    resumeDeletes: false,
    // The API process's /metrics counts this thread's LLM calls too.
    onLlmCall: (entry) => post({ type: 'llm', entry }),
    processMetrics: false,
    worker: { workerId, afterBatch: (report, lastError) => post({ type: 'batch', report, lastError }), beforeStep: () => aside.step() },
  });
  const settle = (id: number, run: Promise<DrainReport>): void => {
    run.then(
      (report) => post({ type: 'done', id, report }),
      (e: unknown) => {
        log.error(`consolidation run of the thread ${workerId} failed: ${message(e)}`);
        post({ type: 'done', id, error: message(e) });
      },
    );
  };
  port.on('message', (m: ToThread) => {
    switch (m.type) {
      case 'notify':
        worker.notify(m.bankId);
        return;
      case 'drain':
        settle(m.id, worker.drain(m.bankId));
        return;
      case 'now':
        void worker.consolidateNow(m.bankId).then(({ started, run }) => {
          post({ type: 'started', id: m.id, started });
          settle(m.id, run);
        });
        return;
      case 'stop':
        void worker
          .stop()
          .then(shutdown)
          .finally(() => port.close());
        return;
    }
  });
  worker.start();
  post({ type: 'ready' });
}

await main();
