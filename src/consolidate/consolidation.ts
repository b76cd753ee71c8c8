// The consolidation use cases (what the routes and the CLI call): a bank's status, a run now (waited for, or
// started if a batch could be claimed), and the dead-letter list with retry. attach.ts builds it around the worker.
import type { Bank } from '../core/index.ts';
import { log } from '../log.ts';
import type { AuditReads, ConsolidationQueue, DeadLetter, Heartbeats } from '../store/index.ts';
import { consolidationStatus, type ConsolidationStatus } from './status.ts';
import type { ConsolidationWorker, DrainReport } from './worker.ts';

/** A run asked for without waiting: started (a batch was claimed) or not, and why not. */
export type StartOutcome = { started: true; status: ConsolidationStatus } | { started: false; reason: string; status: ConsolidationStatus };

export class Consolidation {
  constructor(
    /** The loop itself (started, stopped and drained by the composition root and tests). */
    readonly worker: ConsolidationWorker,
    private readonly store: ConsolidationQueue & Heartbeats & AuditReads,
    private readonly requireBank: (bankId: string) => Promise<Bank>,
  ) {}

  /** Backlog, why it waits, rate, failures. */
  async status(bankId: string): Promise<ConsolidationStatus> {
    return consolidationStatus(this.store, this.worker, await this.requireBank(bankId));
  }

  /** Runs the bank's backlog to the end; batches: 0 in the report (and the status's reason) tell nothing could be claimed. */
  async run(bankId: string): Promise<{ run: DrainReport; status: ConsolidationStatus }> {
    const bank = await this.requireBank(bankId);
    const run = await this.worker.drain(bankId);
    return { run, status: await consolidationStatus(this.store, this.worker, bank) };
  }

  /** Starts a run when a batch can be claimed now; its failure is logged. */
  async start(bankId: string): Promise<StartOutcome> {
    const bank = await this.requireBank(bankId);
    const { started, run } = await this.worker.consolidateNow(bankId);
    if (!started) {
      const status = await consolidationStatus(this.store, this.worker, bank);
      return { started: false, reason: status.waiting.reason ?? 'nothing waits to be consolidated', status };
    }
    run.catch((e: unknown) => log.error(`consolidation run of ${bankId} failed: ${e instanceof Error ? e.message : String(e)}`));
    return { started: true, status: await consolidationStatus(this.store, this.worker, bank) };
  }

  async deadLetters(bankId: string): Promise<DeadLetter[]> {
    await this.requireBank(bankId);
    return this.store.listDeadLetters(bankId);
  }

  /** Puts dead letters (all, or the given facts) back in the queue and wakes the worker; how many. */
  async retryDeadLetters(bankId: string, factIds?: string[]): Promise<number> {
    await this.requireBank(bankId);
    const retried = await this.store.retryDeadLetters(bankId, factIds);
    if (retried) this.worker.notify(bankId);
    return retried;
  }
}
