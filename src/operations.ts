// Async operations: long work (async retain, consolidation runs, re-embeds) recorded in the store with
// status and progress, so clients can poll them and a restarted process resumes what was left unfinished.
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
    let result: T | undefined;
    let failure: unknown = null;
    await this.run(op, async () => {
      try {
        result = await work();
        return result;
      } catch (e) {
        failure = e;
        throw e;
      }
    });
    if (failure !== null) throw failure;
    return result as T;
  }

  private async run(op: Operation, handler: OperationHandler): Promise<void> {
    const update = async (patch: Partial<Operation>): Promise<void> => {
      Object.assign(op, patch, { updatedAt: nowIso() });
      await this.store.updateOperation(op).catch((e: unknown) => log.warn(`operation ${op.id}: could not record progress: ${String(e)}`));
    };
    if (op.status !== 'running') await update({ status: 'running' });
    try {
      const result = await handler(op, (done, total) => update({ progress: { done, total } }));
      await update({ status: 'succeeded', result, progress: { done: op.progress.total, total: op.progress.total } });
    } catch (e) {
      log.error(`operation ${op.id} (${op.kind}) failed: ${e instanceof Error ? e.message : String(e)}`);
      await update({ status: 'failed', error: e instanceof Error ? e.message : String(e) });
    }
  }
}
