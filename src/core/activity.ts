// How many API calls (recalls, retains) are running right now, in memory other threads can read: the consolidation
// thread steps aside while the count is above zero ("API first", issue #14). On a machine of two cores (often two
// hyperthreads of one), a consolidation step running beside a recall slows it about twofold whatever its nice level:
// they share the core. Waiting is bounded, so constant traffic slows consolidation but never stops it.
import { setTimeout as sleep } from 'node:timers/promises';

export class Activity {
  private readonly count: Int32Array;

  /** `buffer`: another thread's Activity's, to read the same count (default: a new one). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.count = new Int32Array(buffer);
  }

  /** Runs `work` counted as API activity. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    Atomics.add(this.count, 0, 1);
    try {
      return await work();
    } finally {
      Atomics.sub(this.count, 0, 1);
    }
  }

  get busy(): boolean {
    return Atomics.load(this.count, 0) > 0;
  }

  /** Resolves once nothing is running, or after `maxMs` (polling every `everyMs`, without blocking this thread). */
  async quiet(maxMs: number, everyMs = 2): Promise<void> {
    const until = performance.now() + maxMs;
    while (this.busy && performance.now() < until) await sleep(everyMs);
  }
}

/**
 * Where background work steps aside for the API: each call waits for a quiet API, for as long as the work done since
 * the previous call has earned (waitPerWork ms per ms of work, at most maxMs at a time). Under constant traffic the
 * work keeps 1 / (1 + waitPerWork) of its pace instead of stopping; with a quiet API it never waits.
 */
export class StepAside {
  private allowance: number;
  private last = performance.now();

  constructor(
    private readonly activity: Activity,
    private readonly waitPerWork = 3,
    private readonly maxMs = 1_000,
  ) {
    this.allowance = maxMs;
  }

  async step(): Promise<void> {
    const now = performance.now();
    this.allowance = Math.min(this.maxMs, this.allowance + (now - this.last) * this.waitPerWork);
    await this.activity.quiet(this.allowance);
    this.last = performance.now();
    this.allowance = Math.max(0, this.allowance - (this.last - now));
  }
}
