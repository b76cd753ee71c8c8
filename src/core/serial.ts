// Per-key serial execution: tasks that share a key run one after another, in the order they were queued (after the
// one before settles, whether it succeeded or failed); tasks of different keys run independently. Thread memory
// serializes every state change of a record with it, retains their bank's writes, the worker its batches per bank.
export class SerialQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Whether a task of the key is queued or running. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }
}
