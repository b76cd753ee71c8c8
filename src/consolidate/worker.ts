// The consolidation worker: banks with a backlog -> claim waiting facts under a lease -> load their context ->
// consolidate -> apply atomically (the store checks the lease, so a crash or a stall never applies work twice).
// It beats while it runs (src/liveness.ts): a killed worker's claims are taken over as soon as it is seen dead
// (at once on its host, after deadAfterMs elsewhere), not when its lease ends.
// A failed batch is retried fact by fact; a fact that keeps failing backs off exponentially and, after
// maxAttempts, goes to the dead-letter list. Idle, it polls; notify() wakes it when facts arrive.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { CairnError, nowIso, type Bank, type Fact, SerialQueue } from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';
import { DEFAULT_LIVENESS, Liveness, newHolderId, type LivenessOptions } from '../liveness.ts';
import { log } from '../log.ts';
import { traced } from '../telemetry/index.ts';
import type { AuditReads, BankStore, Claim, ConsolidationQueue, Forgetting, Heartbeats, RecallReads } from '../store/index.ts';
import type { Consolidator } from './consolidator.ts';
import { DEFAULT_CONTEXT_OPTIONS, loadContext, type ContextOptions } from './context.ts';
import { planWrite, type PlanSummary } from './plan.ts';
import { RateMeter } from './rate.ts';
import { repairBlanked } from './revise.ts';

export interface WorkerDeps {
  /** The queue it works, the context it reads, the beats it makes, and the repair of blanked observations (revise.ts). */
  store: BankStore & ConsolidationQueue & RecallReads & AuditReads & Forgetting & Heartbeats;
  embedder: Embedder;
  consolidator: Consolidator;
}

export interface WorkerOptions {
  workerId: string;
  /** Facts claimed per batch (default 16). */
  claimSize: number;
  /**
   * How long a claim is held before another worker may take the facts over (default 2 minutes), even from a worker
   * that still beats: the bound on a batch that hangs.
   */
  leaseMs: number;
  /** Heartbeat: beat every intervalMs, presumed dead after deadAfterMs of silence (default 2 s and 10 s). */
  liveness: LivenessOptions;
  /** Attempts before a fact goes to the dead-letter list (default 5). */
  maxAttempts: number;
  /** Delay before the first retry; it doubles with each attempt up to maxBackoffMs (default 2 s, cap 10 min). */
  backoffMs: number;
  maxBackoffMs: number;
  /** Sleep between polls when there is nothing to do (default 1 s). */
  pollMs: number;
  /** What is loaded as context per batch (batchSize: related observations, default 50). */
  context: ContextOptions;
  /** Called after a claim, before its result is applied (a test hook to stall the worker mid-batch). */
  beforeApply?: (bankId: string, claim: Claim) => Promise<void> | void;
  /** Awaited before each step of a batch (context, decisions, plan, write): the thread's loop waits there while the
   * API is busy (core/activity.ts). */
  beforeStep?: () => Promise<void>;
  /** Called after each batch with the bank's last error (null after a success): a loop on a worker thread reports
   * its throughput and errors to the API's status through it. */
  afterBatch?: (report: BatchReport, lastError: { error: string; at: string } | null) => void;
}

/**
 * A consolidation loop run elsewhere on this worker's behalf (a worker thread, see thread.ts): while it runs, the
 * loop, drains asked for through the API and notifications go to it, so one worker at a time holds each bank.
 */
export interface RemoteLoop {
  readonly id: string;
  readonly running: boolean;
  start(): void;
  stop(): Promise<void>;
  notify(bankId?: string): void;
  drain(bankId: string): Promise<DrainReport>;
  consolidateNow(bankId: string): Promise<{ started: boolean; run: Promise<DrainReport> }>;
  isDraining(bankId: string): boolean;
}

export const DEFAULT_WORKER_OPTIONS: Omit<WorkerOptions, 'workerId'> = {
  claimSize: 16,
  leaseMs: 120_000,
  liveness: DEFAULT_LIVENESS,
  maxAttempts: 5,
  backoffMs: 2_000,
  maxBackoffMs: 600_000,
  pollMs: 1_000,
  context: DEFAULT_CONTEXT_OPTIONS,
};

export interface BatchReport extends PlanSummary {
  bankId: string;
  claimed: number;
  consolidated: number;
  failed: number;
  ms: number;
}

export interface DrainReport extends PlanSummary {
  bankId: string;
  batches: number;
  consolidated: number;
  failed: number;
  ms: number;
}

export const newWorkerId = newHolderId;

const emptySummary = (): PlanSummary => ({ created: 0, revised: 0, superseded: 0 });
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export class ConsolidationWorker {
  readonly id: string;
  readonly options: WorkerOptions;
  readonly meter = new RateMeter();
  /** The last error per bank (cleared by a successful batch). */
  readonly lastErrors = new Map<string, { error: string; at: string }>();
  private readonly attempts = new Map<string, number>();
  /** Batches of one bank run one after another. */
  private readonly batches = new SerialQueue();
  private readonly draining = new Map<string, Promise<DrainReport>>();
  /** Callers waiting to learn whether the next claim in a bank got anything (see consolidateNow). */
  private readonly claimWaiters = new Map<string, Array<(claimed: boolean) => void>>();
  readonly liveness: Liveness;
  private loop: Promise<void> | null = null;
  private remote: RemoteLoop | null = null;
  private active = false;
  private wake: (() => void) | null = null;

  constructor(
    readonly deps: WorkerDeps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...DEFAULT_WORKER_OPTIONS, workerId: newWorkerId(), ...options };
    this.id = this.options.workerId;
    this.liveness = new Liveness(deps.store, this.id, 'drain', this.options.liveness);
  }

  get running(): boolean {
    return this.remote ? this.remote.running : this.active;
  }

  /** The id of the worker running the loop (this one's, or the remote loop's). */
  get loopId(): string {
    return this.remote?.id ?? this.id;
  }

  /** From now on the loop runs elsewhere (call before start). */
  runElsewhere(remote: RemoteLoop): void {
    this.remote = remote;
  }

  /** Starts the polling loop (idempotent). Also rebuilds observations a crash left blank after a deletion. */
  start(): void {
    if (this.remote) return this.remote.start();
    if (this.active) return;
    this.active = true;
    this.loop = this.run();
    log.info(`consolidation worker ${this.id} started (${this.deps.consolidator.name} consolidator)`);
  }

  /** Stops after the batch in progress; resolves when the loop and any drains have finished and it stopped beating. */
  async stop(): Promise<void> {
    await this.remote?.stop();
    this.active = false;
    this.wake?.();
    await this.loop;
    this.loop = null;
    await Promise.allSettled([...this.draining.values()]);
    await this.liveness.stop();
  }

  /** New facts are waiting: poll now instead of after the idle sleep. */
  notify(bankId?: string): void {
    this.remote?.notify(bankId);
    this.wake?.();
  }

  /** Consolidates the bank until nothing more can be claimed (a run started now; concurrent calls share it). */
  drain(bankId: string): Promise<DrainReport> {
    if (this.remote?.running) return this.remote.drain(bankId);
    let running = this.draining.get(bankId);
    if (!running) {
      running = this.drainBank(bankId).finally(() => this.draining.delete(bankId));
      this.draining.set(bankId, running);
    }
    return running;
  }

  isDraining(bankId: string): boolean {
    if (this.remote?.running) return this.remote.isDraining(bankId);
    return this.draining.has(bankId);
  }

  /**
   * Starts consolidating the bank now and says whether it could: `started` is true once a batch is claimed (or one of
   * the bank's batches is already running here), false when nothing could be claimed (nothing waits, the facts wait
   * for a retry, or another live worker holds the bank; the status says which).
   */
  async consolidateNow(bankId: string): Promise<{ started: boolean; run: Promise<DrainReport> }> {
    if (this.remote?.running) return this.remote.consolidateNow(bankId);
    if (this.batches.busy(bankId)) return { started: true, run: this.drain(bankId) };
    const claimed = new Promise<boolean>((resolve) => this.claimWaiters.set(bankId, [...(this.claimWaiters.get(bankId) ?? []), resolve]));
    const run = this.drain(bankId);
    run.then(
      () => this.settleClaim(bankId, false),
      () => this.settleClaim(bankId, false),
    );
    return { started: await claimed, run };
  }

  private settleClaim(bankId: string, claimed: boolean): void {
    const waiters = this.claimWaiters.get(bankId);
    if (!waiters) return;
    this.claimWaiters.delete(bankId);
    for (const resolve of waiters) resolve(claimed);
  }

  private async drainBank(bankId: string): Promise<DrainReport> {
    // Claims taken here must lapse promptly if this process dies, like the loop's; dead holders' claims are freed first.
    await this.liveness.start();
    await this.liveness.reap();
    const started = performance.now();
    const report: DrainReport = { bankId, batches: 0, consolidated: 0, failed: 0, ms: 0, ...emptySummary() };
    for (;;) {
      const batch = await this.runBatch(bankId);
      if (!batch) break;
      await yieldToEventLoop();
      report.batches++;
      report.consolidated += batch.consolidated;
      report.failed += batch.failed;
      report.created += batch.created;
      report.revised += batch.revised;
      report.superseded += batch.superseded;
    }
    report.ms = Math.round(performance.now() - started);
    return report;
  }

  private async run(): Promise<void> {
    this.liveness.role = 'worker';
    for (;;) {
      try {
        await this.liveness.start();
        await this.liveness.beat();
        break;
      } catch (e) {
        log.error(`consolidation worker ${this.id}: could not start its heartbeat: ${message(e)}`);
        if (!this.active) return;
        await this.sleep(this.options.pollMs);
      }
    }
    await this.repair();
    while (this.active) {
      let worked = false;
      try {
        for (const bankId of await this.deps.store.banksWithBacklog()) {
          if (!this.active) break;
          if (await this.runBatch(bankId)) worked = true;
          // Store calls are synchronous underneath: let the API answer between batches.
          await yieldToEventLoop();
        }
      } catch (e) {
        log.error(`consolidation worker ${this.id}: ${message(e)}`);
      }
      if (!worked && this.active) await this.sleep(this.options.pollMs);
    }
  }

  private async repair(): Promise<void> {
    try {
      for (const bank of await this.deps.store.listBanks()) {
        const r = await repairBlanked(this.deps, bank.id);
        if (r.revised.length || r.removed.length)
          log.info(`rebuilt ${r.revised.length} and removed ${r.removed.length} blanked observation(s) of ${bank.id}`);
      }
    } catch (e) {
      log.warn(`consolidation worker ${this.id}: repair of blanked observations failed: ${message(e)}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.();
      const self = this;
      function done(): void {
        clearTimeout(timer);
        if (self.wake === done) self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  /** One claim of one bank, under this process's lock for the bank. Null when nothing could be claimed. */
  runBatch(bankId: string): Promise<BatchReport | null> {
    return this.batches.run(bankId, () => this.batch(bankId));
  }

  /**
   * Why the bank's facts cannot be consolidated by this process: the bank holds vectors of another embedder (its
   * observations could be neither searched nor stored). Null when they can.
   */
  embedderMismatch(bank: Bank): string | null {
    const active = this.deps.embedder.id;
    return bank.embedder && bank.embedder !== active
      ? `bank '${bank.id}' holds vectors of '${bank.embedder}' but this process embeds with '${active}': its facts wait ` +
          `until Cairn runs with the bank's embedder (or 'cairn reembed ${bank.id}')`
      : null;
  }

  private async batch(bankId: string): Promise<BatchReport | null> {
    const { store } = this.deps;
    let claim: Claim | null = null;
    let bank: Bank | null = null;
    try {
      bank = await store.getBank(bankId);
      const mismatch = bank && this.embedderMismatch(bank);
      if (mismatch) {
        // Nothing is claimed, so nothing is retried or dead-lettered: the facts stay waiting, unchanged.
        if (this.lastErrors.get(bankId)?.error !== mismatch) log.warn(`consolidation skips a bank: ${mismatch}`);
        this.lastErrors.set(bankId, { error: mismatch, at: nowIso() });
      } else if (bank) claim = await store.claimUnconsolidated(bankId, this.id, this.options.claimSize, this.options.leaseMs);
    } finally {
      this.settleClaim(bankId, claim !== null);
    }
    if (!bank || !claim) return null;
    const claimed = { bank, claim };
    // A span per claimed batch (not per poll that found nothing).
    return traced('consolidation.batch', { 'cairn.bank': bankId, 'cairn.claimed': claim.factIds.length }, async (span) => {
      const report = await this.consolidate(claimed.bank, claimed.claim);
      span.setAttributes({ 'cairn.consolidated': report.consolidated, 'cairn.failed': report.failed });
      return report;
    });
  }

  /** Consolidates a claimed batch: all at once, or fact by fact when the whole batch failed. */
  private async consolidate(bank: Bank, claim: Claim): Promise<BatchReport> {
    const { store } = this.deps;
    const bankId = bank.id;
    const started = performance.now();
    const report: BatchReport = { bankId, claimed: claim.factIds.length, consolidated: 0, failed: 0, ms: 0, ...emptySummary() };
    const facts = await store.getFacts(bankId, claim.factIds);
    const gone = claim.factIds.filter((id) => !facts.some((f) => f.id === id));
    try {
      const { applied, ...summary } = await this.apply(bank, facts, claim);
      Object.assign(report, summary, { consolidated: applied });
      for (const f of facts) this.attempts.delete(f.id);
      this.lastErrors.delete(bankId);
    } catch (e) {
      if (isLeaseLost(e)) {
        log.warn(`consolidation worker ${this.id}: ${message(e)}; another worker took the batch over`);
      } else if (facts.length > 1) {
        log.warn(`consolidation of ${facts.length} facts of ${bankId} failed (${message(e)}); retrying them one by one`);
        for (const f of facts) {
          try {
            const summary = await this.apply(bank, [f], claim);
            report.created += summary.created;
            report.revised += summary.revised;
            report.superseded += summary.superseded;
            report.consolidated += summary.applied;
            this.attempts.delete(f.id);
          } catch (single) {
            if (isLeaseLost(single)) break;
            await this.fail(bankId, [f], single);
            report.failed++;
          }
        }
      } else {
        await this.fail(bankId, facts, e);
        report.failed += facts.length;
      }
    }
    if (gone.length) log.debug(`consolidation: ${gone.length} claimed fact(s) of ${bankId} were deleted meanwhile`);
    report.ms = Math.round(performance.now() - started);
    this.meter.record(bankId, report.consolidated, report.failed, report.ms);
    this.options.afterBatch?.(report, this.lastErrors.get(bankId) ?? null);
    return report;
  }

  /**
   * Context -> decisions -> one atomic write, redone (up to 3 times) when an observation changed meanwhile or a
   * claimed fact was deleted meanwhile (the rest of the batch is still ours).
   */
  private async apply(bank: Bank, claimed: Fact[], claim: Claim): Promise<PlanSummary & { applied: number }> {
    const { store, embedder, consolidator } = this.deps;
    let facts = claimed;
    for (let attempt = 1; ; attempt++) {
      const step = this.options.beforeStep;
      await step?.();
      const input = { ...(await loadContext(store, bank, facts, this.options.context, nowIso())), ...(step ? { pause: step } : {}) };
      await step?.();
      const decisions = await consolidator.consolidate(input);
      await step?.();
      const { write, summary } = await planWrite(input, decisions, { embedder, workerId: this.id, consolidator: consolidator.name });
      await step?.();
      await this.options.beforeApply?.(bank.id, claim);
      try {
        await store.applyObservations(write);
        return { ...summary, applied: facts.length };
      } catch (e) {
        if (!(e instanceof CairnError && e.code === 'conflict') || attempt >= 3) throw e;
        if (isLeaseLost(e)) {
          const left = await store.getFacts(
            bank.id,
            facts.map((f) => f.id),
          );
          if (left.length === facts.length) throw e;
          facts = left;
        }
        log.debug(`consolidation of ${bank.id}: ${message(e)}; redoing the batch`);
      }
    }
  }

  private async fail(bankId: string, facts: Fact[], error: unknown): Promise<void> {
    const text = message(error);
    this.lastErrors.set(bankId, { error: text, at: nowIso() });
    const byDelay = new Map<number, string[]>();
    for (const f of facts) {
      const n = (this.attempts.get(f.id) ?? 0) + 1;
      this.attempts.set(f.id, n);
      if (n >= this.options.maxAttempts) this.attempts.delete(f.id);
      const delay = Math.min(this.options.maxBackoffMs, this.options.backoffMs * 2 ** (n - 1));
      byDelay.set(delay, [...(byDelay.get(delay) ?? []), f.id]);
    }
    for (const [delay, ids] of byDelay) await this.deps.store.failClaim(bankId, this.id, ids, text, this.options.maxAttempts, delay);
    log.warn(`consolidation of ${facts.length} fact(s) of ${bankId} failed: ${text}`);
  }
}

function isLeaseLost(e: unknown): boolean {
  return e instanceof CairnError && e.code === 'conflict' && /lost its lease/.test(e.message);
}
