// Liveness of the processes that hold work in the store (consolidation claims, running operations). A holder beats
// every intervalMs and each beat holds for deadAfterMs, so work whose holder went silent is taken over within
// seconds instead of waiting out a lease. On the holder's own host death is seen at once: its pid no longer runs,
// or runs a newer process. Presuming a live holder dead (a stalled event loop) costs redone work, never a wrong
// result: the store refuses a result whose claim another worker has taken.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { log } from './log.ts';
import type { Heartbeat, Heartbeats } from './store/index.ts';

export interface LivenessOptions {
  /** How often a holder beats (default 2 s). */
  intervalMs: number;
  /** How long a beat holds: a holder silent for longer is presumed dead (default 10 s). */
  deadAfterMs: number;
}

export const DEFAULT_LIVENESS: LivenessOptions = { intervalMs: 2_000, deadAfterMs: 10_000 };

/**
 * When this process started: the same in each of its threads (the consolidation thread beats for the same process
 * as the API thread), so a holder whose pid runs a process of another start time is known dead. Linux tells it
 * (/proc: boot time plus the process's start in clock ticks of 1/100 s); elsewhere the time this module loaded.
 */
function processStartedAt(): string {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (Number.isFinite(ticks) && Number.isFinite(boot)) return new Date(boot * 1000 + ticks * 10).toISOString();
  } catch {
    // not Linux
  }
  return new Date().toISOString();
}

/** This process, as its heartbeats describe it. */
export const THIS_PROCESS = { host: hostname(), pid: process.pid, startedAt: processStartedAt() };

/** A fresh holder id: host, pid and a random suffix. */
export const newHolderId = (): string => `${THIS_PROCESS.host}-${THIS_PROCESS.pid}-${randomBytes(3).toString('hex')}`;

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface HolderState {
  alive: boolean;
  /** Why it is presumed dead (null while alive). */
  gone: string | null;
  /** Seconds since its last beat. */
  ageSeconds: number;
}

/** Whether a holder counts as alive: it beat recently and, on this host, its process still runs. */
export function holderState(h: Heartbeat, now = Date.now()): HolderState {
  const ageSeconds = Math.max(0, Math.round((now - Date.parse(h.beatAt)) / 1000));
  const dead = (gone: string): HolderState => ({ alive: false, gone, ageSeconds });
  if (Date.parse(h.aliveUntil) < now) return dead(`no heartbeat for ${ageSeconds} s`);
  if (h.host === THIS_PROCESS.host) {
    if (h.pid === THIS_PROCESS.pid && h.startedAt !== THIS_PROCESS.startedAt)
      return dead(`its process ended (pid ${h.pid} now runs a newer one)`);
    if (h.pid !== THIS_PROCESS.pid && !pidRuns(h.pid)) return dead(`its process (pid ${h.pid} on ${h.host}) is gone`);
  }
  return { alive: true, gone: null, ageSeconds };
}

export class Liveness {
  private timer: NodeJS.Timeout | null = null;
  private starting: Promise<void> | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly store: Heartbeats,
    readonly id: string,
    /** What the holder does, shown in status ('worker', 'drain', 'operations'). */
    public role: string,
    private readonly options: LivenessOptions = DEFAULT_LIVENESS,
    /** Runs after every beat and reaping, with the holders alive (to take over the work of the dead ones). */
    private readonly afterBeat?: (alive: Heartbeat[]) => Promise<void>,
  ) {}

  get beating(): boolean {
    return this.timer !== null;
  }

  /**
   * Starts beating (idempotent). An earlier holder of the same id that is dead (a killed run of this worker) is
   * forgotten first, which frees its claims; one that is still alive elsewhere is waited for. Then the dead holders
   * are reaped, so the first claim after start already takes their work over.
   */
  start(): Promise<void> {
    this.stopped = false;
    this.starting ??= this.begin().catch((e: unknown) => {
      this.starting = null;
      throw e;
    });
    return this.starting;
  }

  private async begin(): Promise<void> {
    for (;;) {
      const same = (await this.store.heartbeats()).find((h) => h.id === this.id);
      const state = same && holderState(same);
      if (!same || !state?.alive || (same.host === THIS_PROCESS.host && same.pid === THIS_PROCESS.pid)) break;
      if (this.stopped) return;
      log.warn(
        `${this.role} ${this.id}: a live process (pid ${same.pid} on ${same.host}) beats under this id; waiting until it stops or goes silent`,
      );
      await new Promise((resolve) => setTimeout(resolve, Math.max(100, Date.parse(same.aliveUntil) - Date.now() + 50)));
    }
    await this.store.retireHeartbeat(this.id, null);
    await this.beat();
    await this.reap();
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => (this.ticking = null));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.beat();
      const alive = await this.reap();
      await this.afterBeat?.(alive);
    } catch (e) {
      log.warn(`${this.role} ${this.id}: heartbeat failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async beat(): Promise<void> {
    const now = Date.now();
    await this.store.beat({
      id: this.id,
      role: this.role,
      ...THIS_PROCESS,
      beatAt: new Date(now).toISOString(),
      aliveUntil: new Date(now + this.options.deadAfterMs).toISOString(),
    });
  }

  /** Forgets the holders presumed dead (their claims are free again); returns those alive, this one included. */
  async reap(now = Date.now()): Promise<Heartbeat[]> {
    const alive: Heartbeat[] = [];
    for (const h of await this.store.heartbeats()) {
      const state = h.id === this.id ? null : holderState(h, now);
      if (!state || state.alive) alive.push(h);
      else if (await this.store.retireHeartbeat(h.id, h.beatAt))
        log.info(`${h.role} ${h.id} is presumed dead (${state.gone}): its work is taken over`);
    }
    return alive;
  }

  /** Stops beating and forgets this holder (releasing any claim it still holds). */
  async stop(): Promise<void> {
    this.stopped = true;
    const started = this.starting;
    if (!started) return;
    await started.catch(() => undefined);
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    this.starting = null;
    await this.store.retireHeartbeat(this.id, null);
  }
}
