// Async operations: long work (async retain, consolidation runs, re-embeds) recorded in the store with
// status and progress, so clients can poll them and another process resumes what a dead one left unfinished.
// Each operation is held by the process running it, which beats (src/liveness.ts); a process that resumes
// operations takes over those whose holder is dead (at start, and at every beat after), never a live one's.
import { newId } from './core/ids.ts';
import { nowIso } from './core/time.ts';
import type { Operation } from './core/types.ts';
import { DEFAULT_LIVENESS, Liveness, newHolderId, type LivenessOptions } from './liveness.ts';
import type { Heartbeat, MemoryStore } from './store/ports.ts';
import { log } from './log.ts';

export type OperationHandler = (op: Operation, progress: (done: number, total: number) => Promise<void>) => Promise<unknown>;

export class Operations {
  private readonly handlers = new Map<string, OperationHandler>();
  private readonly running = new Set<Promise<void>>();
  /** Ids of the operations running in this process. */
  private readonly here = new Set<string>();
  private readonly liveness: Liveness;
  private resuming = false;

  constructor(
    private readonly store: MemoryStore,
    liveness: LivenessOptions = DEFAULT_LIVENESS,
  ) {
    this.liveness = new Liveness(store, `ops-${newHolderId()}`, 'operations', liveness, (alive) => (this.resuming ? this.adopt(alive).then(() => undefined) : Promise.resolve()));
  }

  /** The id this process holds its operations under. */
  get holder(): string {
    return this.liveness.id;
  }

  register(kind: string, handler: OperationHandler): void {
    this.handlers.set(kind, handler);
  }

  async submit(bankId: string, kind: string, input: unknown, total: number): Promise<Operation> {
    const now = nowIso();
    await this.liveness.start();
    const op: Operation = {
      id: newId('op'), bankId, kind, status: 'queued', progress: { done: 0, total }, input, result: null, error: null, createdAt: now, updatedAt: now,
      owner: this.liveness.id,
    };
    await this.store.createOperation(op);
    this.start(op);
    return op;
  }

  /**
   * Re-runs the operations whose holder is dead (handlers are idempotent), now and, from then on, whenever a holder
   * is seen dead. Returns how many were taken over now.
   */
  async resume(): Promise<number> {
    await this.liveness.start();
    this.resuming = true;
    return this.adopt(await this.liveness.reap());
  }

  private async adopt(alive: Heartbeat[]): Promise<number> {
    const live = new Set(alive.map((h) => h.id));
    let adopted = 0;
    for (const op of await this.store.unfinishedOperations()) {
      const from = op.owner ?? null;
      if (this.here.has(op.id) || !this.handlers.has(op.kind) || (from !== null && from !== this.holder && live.has(from))) continue;
      if (!(await this.store.adoptOperation(op.id, from, this.holder))) continue;
      log.info(`resuming operation ${op.id} (${op.kind}) left by ${from ?? 'no process'}`);
      this.start({ ...op, owner: this.holder });
      adopted++;
    }
    return adopted;
  }

  /** Waits until every operation started by this process has finished. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** Lets the running operations finish, then stops beating. */
  async close(): Promise<void> {
    this.resuming = false;
    await this.idle();
    await this.liveness.stop();
  }

  private start(op: Operation): void {
    const handler = this.handlers.get(op.kind);
    if (!handler) {
      log.warn(`no handler for operation kind '${op.kind}' (${op.id})`);
      return;
    }
    this.here.add(op.id);
    const task = this.run(op, handler).finally(() => {
      this.running.delete(task);
      this.here.delete(op.id);
    });
    this.running.add(task);
  }

  private async run(op: Operation, handler: OperationHandler): Promise<void> {
    let lost = false;
    const update = async (patch: Partial<Operation>): Promise<void> => {
      if (lost) return;
      Object.assign(op, patch, { updatedAt: nowIso() });
      try {
        if (await this.store.updateOperation(op)) return;
        // Presumed dead (this process stalled), another took it over and records it now; this run's writes are idempotent.
        lost = true;
        log.warn(`operation ${op.id} was taken over by another process; this one no longer records it`);
      } catch (e) {
        log.warn(`operation ${op.id}: could not record progress: ${String(e)}`);
      }
    };
    await update({ status: 'running' });
    try {
      const result = await handler(op, (done, total) => update({ progress: { done, total } }));
      await update({ status: 'succeeded', result, progress: { done: op.progress.total, total: op.progress.total } });
    } catch (e) {
      log.error(`operation ${op.id} (${op.kind}) failed: ${e instanceof Error ? e.message : String(e)}`);
      await update({ status: 'failed', error: e instanceof Error ? e.message : String(e) });
    }
  }
}
