// Async operations: long work (async retain, consolidation runs, re-embeds) recorded in the store with
// status and progress, so clients can poll them and another process resumes what a dead one left unfinished.
// Each operation is held by the process running it, which beats (src/liveness.ts); a process that resumes
// operations takes over those whose holder is dead (at start, and at every beat after), never a live one's.
import { CairnError, newId, nowIso, type Operation, type OperationStatus } from './core/index.ts';
import { DEFAULT_LIVENESS, Liveness, newHolderId, type LivenessOptions } from './liveness.ts';
import type { Heartbeat, Heartbeats, OperationStore } from './store/index.ts';
import { log } from './log.ts';

export type OperationHandler = (op: Operation, progress: (done: number, total: number) => Promise<void>) => Promise<unknown>;

/** A new operation record (not stored yet). */
export function newOperation(bankId: string, kind: string, input: unknown, total: number, status: OperationStatus = 'queued'): Operation {
  const now = nowIso();
  return {
    id: newId('op'),
    bankId,
    kind,
    status,
    progress: { done: 0, total },
    input,
    result: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
}

export class Operations {
  private readonly handlers = new Map<string, OperationHandler>();
  private readonly running = new Set<Promise<void>>();
  /** Ids of the operations running in this process. */
  private readonly here = new Set<string>();
  private readonly liveness: Liveness;
  private resuming = false;

  constructor(
    private readonly store: OperationStore & Heartbeats,
    liveness: LivenessOptions = DEFAULT_LIVENESS,
  ) {
    this.liveness = new Liveness(store, `ops-${newHolderId()}`, 'operations', liveness, (alive) =>
      this.resuming ? this.adopt(alive).then(() => undefined) : Promise.resolve(),
    );
  }

  /** The id this process holds its operations under. */
  get holder(): string {
    return this.liveness.id;
  }

  register(kind: string, handler: OperationHandler): void {
    this.handlers.set(kind, handler);
  }

  /** A new operation held by this process (not stored yet): once stored, it is taken over if this process dies. */
  async create(bankId: string, kind: string, input: unknown, total: number, status: OperationStatus = 'queued'): Promise<Operation> {
    await this.liveness.start();
    return { ...newOperation(bankId, kind, input, total, status), owner: this.holder };
  }

  async submit(bankId: string, kind: string, input: unknown, total: number): Promise<Operation> {
    const op = await this.create(bankId, kind, input, total);
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
      // This process's own operations run here (in the background or awaited by a request): never taken over.
      if (from === this.holder || this.here.has(op.id) || !this.handlers.has(op.kind) || (from !== null && live.has(from))) continue;
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

  /** Runs a stored operation in the background (status, result and error recorded as it goes). */
  start(op: Operation): void {
    const handler = this.handlers.get(op.kind);
    if (!handler) {
      log.warn(`no handler for operation kind '${op.kind}' (${op.id})`);
      return;
    }
    const task = this.run(op, handler).finally(() => this.running.delete(task));
    this.running.add(task);
  }

  /** Runs a stored operation and waits for it: its result, or its error (recorded on the operation) thrown. */
  async perform<T>(op: Operation, work: () => Promise<T>): Promise<T> {
    let outcome: { result: T } | { error: unknown } | null = null;
    await this.run(op, async () => {
      try {
        const result = await work();
        outcome = { result };
        return result;
      } catch (error) {
        outcome = { error };
        throw error;
      }
    });
    const ended = outcome as { result: T } | { error: unknown } | null;
    if (ended === null)
      throw new CairnError('conflict', `operation '${op.id}' was stopped before it started: ${op.error ?? 'it is no longer queued'}`);
    if ('error' in ended) throw ended.error;
    return ended.result;
  }

  /** Runs the operation, known meanwhile as running here (never taken over by this process's own sweep). */
  private async run(op: Operation, handler: OperationHandler): Promise<void> {
    this.here.add(op.id);
    try {
      await this.record(op, handler);
    } finally {
      this.here.delete(op.id);
    }
  }

  /**
   * Runs the handler and records how it went. Every update applies only from the status the operation should be in:
   * one failed meanwhile (its bank was deleted) stays failed, with the reason given then, and a queued one that is
   * no longer queued does not start. Only while this process holds it: once another took it over (this one was
   * presumed dead), this run records nothing more, and the store refuses its writes that carry the operation.
   */
  private async record(op: Operation, handler: OperationHandler): Promise<void> {
    let lost = false;
    const update = async (patch: Partial<Operation>, from: OperationStatus[]): Promise<boolean> => {
      if (lost) return false;
      const next = { ...op, ...patch, updatedAt: nowIso() };
      const written = await this.store.updateOperation(next, from).catch((e: unknown) => {
        log.warn(`operation ${op.id}: could not record its state: ${String(e)}`);
        return true;
      });
      if (written) {
        Object.assign(op, next);
        return true;
      }
      const stored = await this.store.getOperation(op.id).catch(() => null);
      if (stored && op.owner !== undefined && (stored.owner ?? null) !== (op.owner ?? null)) {
        lost = true;
        log.warn(`operation ${op.id} was taken over by ${stored.owner ?? 'no process'}; this process no longer records it`);
        return false;
      }
      Object.assign(op, stored ?? next);
      return false;
    };
    if (op.status !== 'running' && !(await update({ status: 'running' }, ['queued']))) return;
    try {
      const result = await handler(op, async (done, total) => {
        await update({ progress: { done, total } }, ['running']);
      });
      await update({ status: 'succeeded', result, progress: finished(op.progress) }, ['running']);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      // Stopped from outside (its bank deleted, or taken over by another process): not a failure of this run.
      const stored = await this.store.getOperation(op.id).catch(() => null);
      if (lost || (stored && stored.status !== 'running'))
        log.warn(`operation ${op.id} (${op.kind}) stopped here: ${stored?.error ?? `taken over by ${stored?.owner ?? 'another process'}`}`);
      else log.error(`operation ${op.id} (${op.kind}) failed: ${message}`);
      await update({ status: 'failed', error: message }, ['queued', 'running']);
    }
  }
}

/** Progress of finished work: everything done (a retain's chunks too). */
function finished(progress: Operation['progress']): Operation['progress'] {
  const { total, chunks } = progress;
  return chunks ? { done: total, total, chunks: { done: chunks.total, total: chunks.total } } : { done: total, total };
}
