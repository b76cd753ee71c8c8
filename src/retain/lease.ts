// One writer per bank across processes: a retain holds the bank's write lease (store port WriteLeases) while it
// resolves entities and writes, because entity resolution reads what the previous retain wrote. Retains of one
// process queue here first (so they wait in order, without polling the store); a retain of another process that
// holds the lease is waited for by polling, and taken over at once when its process is known dead on this host
// (src/liveness.ts), else when its lease runs out. A running retain renews its lease a few times per lease.
import { SerialQueue } from '../core/index.ts';
import { holderState, newHolderId, THIS_PROCESS } from '../liveness.ts';
import { log } from '../log.ts';
import type { WriteLease, WriteLeases } from '../store/index.ts';

export interface LeaseOptions {
  /** How long a lease holds without renewal: a holder dead elsewhere blocks the bank at most this long (default 15 s). */
  leaseMs: number;
  /** The longest wait between two attempts to take a lease another process holds (default 250 ms). */
  maxPollMs: number;
}

export const DEFAULT_LEASES: LeaseOptions = { leaseMs: 15_000, maxPollMs: 250 };

export class BankWriteLeases {
  private readonly queue = new SerialQueue();

  constructor(
    private readonly store: WriteLeases,
    readonly holder = `retain-${newHolderId()}`,
    private readonly options: LeaseOptions = DEFAULT_LEASES,
  ) {}

  /** Runs fn while holding the bank's write lease, after this process's earlier retains into the bank. */
  run<T>(bankId: string, fn: () => Promise<T>): Promise<T> {
    return this.queue.run(bankId, () => this.leased(bankId, fn));
  }

  private async leased<T>(bankId: string, fn: () => Promise<T>): Promise<T> {
    await this.take(bankId);
    let renewing: Promise<unknown> | null = null;
    const timer = setInterval(
      () => {
        renewing ??= this.store
          .takeWriteLease(this.lease(bankId))
          .then((held) => {
            if (held.holder !== this.holder)
              log.warn(
                `retain into bank '${bankId}': its write lease passed to ${held.holder} (this process stalled longer than the lease)`,
              );
          })
          .catch((e: unknown) =>
            log.warn(`retain into bank '${bankId}': renewing its write lease failed: ${e instanceof Error ? e.message : String(e)}`),
          )
          .finally(() => (renewing = null));
      },
      Math.max(50, Math.floor(this.options.leaseMs / 3)),
    );
    timer.unref();
    try {
      return await fn();
    } finally {
      clearInterval(timer);
      await renewing;
      await this.store.releaseWriteLease(bankId, this.holder).catch(() => undefined);
    }
  }

  private lease(bankId: string): WriteLease {
    return { bankId, holder: this.holder, ...THIS_PROCESS, until: new Date(Date.now() + this.options.leaseMs).toISOString() };
  }

  private async take(bankId: string): Promise<void> {
    let takeOver: string | null = null;
    for (let wait = 10; ; wait = Math.min(wait * 2, this.options.maxPollMs)) {
      const held = await this.store.takeWriteLease(this.lease(bankId), takeOver);
      if (held.holder === this.holder) return;
      const state = holderState({
        id: held.holder,
        role: 'retain',
        host: held.host,
        pid: held.pid,
        startedAt: held.startedAt,
        beatAt: held.until,
        aliveUntil: held.until,
      });
      if (!state.alive) {
        // Its process is gone (or its lease ran out): take it over on the next attempt, only from that holder.
        takeOver = held.holder;
        continue;
      }
      takeOver = null;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
