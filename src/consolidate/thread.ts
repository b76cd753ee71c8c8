// The in-process consolidation loop on a worker thread. Consolidation is CPU work (context loading, grouping,
// embedding, writes); on the API's event loop it made recall wait behind it (p95 540 ms against 28 ms idle, issue
// #14). On its own thread, with its own store connection and embedder, it runs on another core, and at a lower
// scheduling priority (nice, Linux) so the API's threads come first when the cores are busy. The API process keeps
// its ConsolidationWorker for status and deletions; the loop, drains asked for through the API and notifications
// are forwarded here (worker.ts RemoteLoop). A thread that dies is started again after a pause.
import type { Worker } from 'node:worker_threads';
import type { Config } from '../config/index.ts';
import type { UsageEntry } from '../llm/index.ts';
import type { Activity } from '../core/index.ts';
import { log } from '../log.ts';
import { sibling, typescriptThread } from '../worker-loader.ts';
import type { FromThread, ThreadData, ToThread } from './thread-entry.ts';
import { newWorkerId, type DrainReport, type RemoteLoop, type ConsolidationWorker } from './worker.ts';

/** Pause before a thread that died is started again. */
const RESTART_MS = 2_000;

interface Pending {
  bankId: string;
  started?: (started: boolean) => void;
  done: (report: DrainReport) => void;
  failed: (error: Error) => void;
}

export class ThreadLoop implements RemoteLoop {
  readonly id = newWorkerId();
  private thread: Worker | null = null;
  /** True once the running thread has composed its store and started its loop (its 'ready' message). */
  private ready = false;
  private wanted = false;
  private stopped: Promise<void> | null = null;
  private nextRequest = 1;
  private readonly pending = new Map<number, Pending>();

  /** `local`: the API process's worker, whose rate meter and last errors show this loop's batches in the status. */
  constructor(
    private readonly config: Config,
    private readonly local: Pick<ConsolidationWorker, 'meter' | 'lastErrors'>,
    private readonly activity: Activity,
    /** Hears each LLM call the thread made (the API process's metrics). */
    private readonly onLlmCall: (entry: UsageEntry) => void = () => {},
  ) {}

  get running(): boolean {
    return this.wanted;
  }

  start(): void {
    if (this.wanted) return;
    this.wanted = true;
    this.spawn();
  }

  async stop(): Promise<void> {
    this.wanted = false;
    const thread = this.thread;
    if (!thread) return;
    this.stopped ??= new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    // Waiting for it to finish its batch must keep this process alive.
    thread.ref();
    // A thread still composing has done no work and holds nothing but a store connection being opened (SQLite keeps
    // the file consistent however that ends): it is ended at once, not waited for through seconds of loading only to
    // start its loop and stop it again.
    if (this.ready) this.send({ type: 'stop' });
    else void thread.terminate();
    await this.stopped;
  }

  notify(bankId?: string): void {
    this.send({ type: 'notify', bankId });
  }

  drain(bankId: string): Promise<DrainReport> {
    return new Promise((done, failed) => {
      const id = this.nextRequest++;
      this.pending.set(id, { bankId, done, failed });
      if (!this.send({ type: 'drain', id, bankId })) this.settle(id, new Error('the consolidation thread is not running'));
    });
  }

  consolidateNow(bankId: string): Promise<{ started: boolean; run: Promise<DrainReport> }> {
    return new Promise((answer) => {
      const id = this.nextRequest++;
      const run = new Promise<DrainReport>((done, failed) => {
        this.pending.set(id, { bankId, done, failed, started: (started) => answer({ started, run }) });
      });
      // A run that could not start is not the caller's to await: its failure is only logged by the thread.
      run.catch(() => undefined);
      if (!this.send({ type: 'now', id, bankId })) this.settle(id, new Error('the consolidation thread is not running'));
    });
  }

  isDraining(bankId: string): boolean {
    return [...this.pending.values()].some((p) => p.bankId === bankId);
  }

  private spawn(): void {
    const data: ThreadData = { config: this.config, workerId: this.id, activity: this.activity.buffer };
    const thread = typescriptThread(sibling('thread-entry', import.meta.url), { workerData: data });
    this.thread = thread;
    this.ready = false;
    this.stopped = null;
    thread.on('message', (m: FromThread) => this.receive(m));
    thread.on('error', (e) =>
      log.error(`consolidation thread ${this.id} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    );
    thread.on('exit', (code) => {
      if (this.thread === thread) this.thread = null;
      for (const id of [...this.pending.keys()]) this.settle(id, new Error(`the consolidation thread exited (code ${code})`));
      if (!this.wanted) return;
      log.warn(`consolidation thread ${this.id} exited (code ${code}); starting it again in ${RESTART_MS / 1000} s`);
      setTimeout(() => {
        if (this.wanted && !this.thread) this.spawn();
      }, RESTART_MS).unref();
    });
    // The API process's own handles keep it alive; an idle loop must not.
    thread.unref();
  }

  private send(message: ToThread): boolean {
    if (!this.thread) return false;
    this.thread.postMessage(message);
    return true;
  }

  private receive(m: FromThread): void {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        return;
      case 'batch':
        this.local.meter.record(m.report.bankId, m.report.consolidated, m.report.failed, m.report.ms);
        if (m.lastError) this.local.lastErrors.set(m.report.bankId, m.lastError);
        else this.local.lastErrors.delete(m.report.bankId);
        return;
      case 'llm':
        this.onLlmCall(m.entry);
        return;
      case 'started':
        this.pending.get(m.id)?.started?.(m.started);
        return;
      case 'done':
        this.settle(m.id, m.error === undefined ? m.report : new Error(m.error));
        return;
    }
  }

  private settle(id: number, outcome: DrainReport | Error | undefined): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (outcome instanceof Error || outcome === undefined) {
      p.started?.(false);
      p.failed(outcome ?? new Error('the consolidation thread sent no report'));
    } else {
      p.started?.(true);
      p.done(outcome);
    }
  }
}
