// Consolidation throughput per bank over a sliding window: facts consolidated, the time spent on them, failures.
export interface RateSnapshot {
  /** Facts consolidated in the window. */
  facts: number;
  /** Facts per second of work (busy time), null before any work in the window. */
  perSecond: number | null;
  /** Facts that failed an attempt in the window. */
  failures: number;
  windowSeconds: number;
  lastBatchAt: string | null;
}

interface Sample {
  at: number;
  facts: number;
  failures: number;
  busyMs: number;
}

export class RateMeter {
  private readonly samples = new Map<string, Sample[]>();

  constructor(private readonly windowMs = 60_000) {}

  record(bankId: string, facts: number, failures: number, busyMs: number, at = Date.now()): void {
    const list = this.samples.get(bankId) ?? [];
    list.push({ at, facts, failures, busyMs });
    this.samples.set(bankId, this.prune(list, at));
  }

  snapshot(bankId: string, at = Date.now()): RateSnapshot {
    const list = this.prune(this.samples.get(bankId) ?? [], at);
    const facts = list.reduce((n, s) => n + s.facts, 0);
    const busy = list.reduce((n, s) => n + s.busyMs, 0);
    const last = list.at(-1);
    return {
      facts,
      perSecond: busy > 0 ? Math.round((facts / (busy / 1000)) * 10) / 10 : null,
      failures: list.reduce((n, s) => n + s.failures, 0),
      windowSeconds: this.windowMs / 1000,
      lastBatchAt: last ? new Date(last.at).toISOString() : null,
    };
  }

  private prune(list: Sample[], at: number): Sample[] {
    const from = at - this.windowMs;
    let i = 0;
    while (i < list.length && list[i].at < from) i++;
    return i ? list.slice(i) : list;
  }
}
