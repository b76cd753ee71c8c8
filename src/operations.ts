// Async operations: long work (async retain, consolidation runs, re-embeds) recorded in the store with
// status and progress, so clients can poll them and a restarted process resumes what was left unfinished.
import { CairnError } from './core/errors.ts';
import { newId } from './core/ids.ts';
import { nowIso } from './core/time.ts';
import type { Operation, OperationStatus } from './core/types.ts';
import type { MemoryStore } from './store/ports.ts';
import { log } from './log.ts';

export type OperationHandler = (op: Operation, progress: (done: number, total: number) => Promise<void>) => Promise<unknown>;

/** A new operation record (not stored yet). */
export function newOperation(bankId: string, kind: string, input: unknown, total: number, status: OperationStatus = 'queued'): Operation {
  const now = nowIso();
  return { id: newId('op'), bankId, kind, status, progress: { done: 0, total }, input, result: null, error: null, createdAt: now, updatedAt: now };
}

export class Operations {
  private readonly handlers = new Map<string, OperationHandler>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly store: MemoryStore) {}

  register(kind: string, handler: OperationHandler): void {
    this.handlers.set(kind, handler);
  }

  async submit(bankId: string, kind: string, input: unknown, total: number): Promise<Operation> {
    const op = newOperation(bankId, kind, input, total);
    await this.store.createOperation(op);
    this.start(op);
    return op;
  }

  /** Re-runs operations a dead process left queued or running (handlers are idempotent). */
  async resume(): Promise<number> {
    const ops = await this.store.unfinishedOperations();
    for (const op of ops) this.start(op);
    return ops.length;
  }

  /** Waits until every operation started by this process has finished. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
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
    if (ended === null) throw new CairnError('conflict', `operation '${op.id}' was stopped before it started: ${op.error ?? 'it is no longer queued'}`);
    if ('error' in ended) throw ended.error;
    return ended.result;
  }

  /**
   * Runs the handler and records how it went. Every update applies only from the status the operation should be in:
   * one failed meanwhile (its bank was deleted) stays failed, with the reason given then, and a queued one that is
   * no longer queued does not start.
   */
  private async run(op: Operation, handler: OperationHandler): Promise<void> {
    const update = async (patch: Partial<Operation>, from: OperationStatus[]): Promise<boolean> => {
      const next = { ...op, ...patch, updatedAt: nowIso() };
      const written = await this.store.updateOperation(next, from).catch((e: unknown) => {
        log.warn(`operation ${op.id}: could not record its state: ${String(e)}`);
        return true;
      });
      Object.assign(op, written ? next : ((await this.store.getOperation(op.id).catch(() => null)) ?? next));
      return written;
    };
    if (op.status !== 'running' && !(await update({ status: 'running' }, ['queued']))) return;
    try {
      const result = await handler(op, async (done, total) => {
        await update({ progress: { done, total } }, ['running']);
      });
      await update({ status: 'succeeded', result, progress: { done: op.progress.total, total: op.progress.total } }, ['running']);
    } catch (e) {
      log.error(`operation ${op.id} (${op.kind}) failed: ${e instanceof Error ? e.message : String(e)}`);
      await update({ status: 'failed', error: e instanceof Error ? e.message : String(e) }, ['queued', 'running']);
    }
  }
}
