// How many API calls (recalls, retains) are running right now, in memory other threads can read, and how many of
// them are reads someone waits on (recalls). The consolidation thread steps aside while any call runs ("API first",
// issue #14): on a machine of two cores (often two hyperthreads of one), a consolidation step running beside a recall
// slows it about twofold whatever its nice level, as they share the core. Background work on the API's own thread (a
// large delete's steps) steps aside for reads: a recall awaits many times, and each turn it waited behind a step of
// that work made it several times slower. Waiting is bounded, so constant traffic slows the work but never stops it.
// Retains do not step aside: one client recalling nonstop slowed batch retains almost threefold.
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/** Which calls a waiter steps aside for: every API call, or reads only. */
export type ActivityWatch = 'calls' | 'reads';
const SLOT: Record<ActivityWatch, number> = { calls: 0, reads: 1 };

export class Activity {
  private readonly count: Int32Array;

  /** `buffer`: another thread's Activity's, to read the same counts (default: new ones). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.count = new Int32Array(buffer);
  }

  /** Runs `work` counted as an API call, and as a read when `read` (a recall someone waits on). */
  async during<T>(work: () => Promise<T>, { read = false }: { read?: boolean } = {}): Promise<T> {
    Atomics.add(this.count, SLOT.calls, 1);
    if (read) Atomics.add(this.count, SLOT.reads, 1);
    try {
      return await work();
    } finally {
      Atomics.sub(this.count, SLOT.calls, 1);
      if (read) Atomics.sub(this.count, SLOT.reads, 1);
    }
  }

  /** Whether an API call is running. */
  get busy(): boolean {
    return this.busyWith('calls');
  }

  /** Whether a call of the watched kind is running. */
  busyWith(watch: ActivityWatch): boolean {
    return Atomics.load(this.count, SLOT[watch]) > 0;
  }

  /** Resolves once no call of the watched kind runs, or after `maxMs` (polling every `everyMs`, without blocking
   * this thread). */
  async quiet(maxMs: number, everyMs = 2, watch: ActivityWatch = 'calls'): Promise<void> {
    const until = performance.now() + maxMs;
    while (this.busyWith(watch) && performance.now() < until) await sleep(everyMs);
  }
}

export interface StepAsideOptions {
  /** Wait allowed per ms of work done (default 3: under constant traffic the work keeps a quarter of its pace). */
  waitPerWork?: number;
  /** The longest wait at a time (default 1 s). */
  maxMs?: number;
  /** What to step aside for (default every API call). */
  watch?: ActivityWatch;
  /** How often a wait looks again (default 2 ms). */
  everyMs?: number;
}

/**
 * Where background work steps aside for the API: each call waits for a quiet API, for as long as the work done since
 * the previous call has earned (waitPerWork ms per ms of work, at most maxMs at a time). Under constant traffic the
 * work keeps 1 / (1 + waitPerWork) of its pace instead of stopping; with a quiet API it never waits.
 */
export class StepAside {
  private allowance: number;
  private last = performance.now();
  private readonly waitPerWork: number;
  private readonly maxMs: number;
  private readonly watch: ActivityWatch;
  private readonly everyMs: number;

  constructor(
    private readonly activity: Activity,
    options: StepAsideOptions = {},
  ) {
    this.waitPerWork = options.waitPerWork ?? 3;
    this.maxMs = options.maxMs ?? 1_000;
    this.watch = options.watch ?? 'calls';
    this.everyMs = options.everyMs ?? 2;
    this.allowance = this.maxMs;
  }

  async step(): Promise<void> {
    const now = performance.now();
    this.allowance = Math.min(this.maxMs, this.allowance + (now - this.last) * this.waitPerWork);
    await this.activity.quiet(this.allowance, this.everyMs, this.watch);
    this.last = performance.now();
    this.allowance = Math.max(0, this.allowance - (this.last - now));
  }
}

/** Steps of background work on the API's thread (a large delete's): a turn of the event loop, then aside while reads
 * run (at least half the work's pace under constant reads; a read waits for at most the one step under way). */
export function readsFirst(activity: Activity, options: StepAsideOptions = {}): () => Promise<void> {
  const aside = new StepAside(activity, { waitPerWork: 1, maxMs: 250, everyMs: 1, ...options, watch: 'reads' });
  return async () => {
    await nextTurn();
    await aside.step();
  };
}
