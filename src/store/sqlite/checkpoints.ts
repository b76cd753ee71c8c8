// Checkpoints of the embedded store's write-ahead log off the main thread. SQLite's own (every 1000 pages) run inside
// the commit that crosses the threshold: copying the pages and syncing the file then stalls that write and every
// request behind it on the event loop (mostly its sync of the file). Once the log has grown past `offloadBytes` (a
// store taking real write volume; small ones never start a thread for this), the main connection stops
// checkpointing and a reader thread copies what was committed every `everyMs` while writes go on. A log can only
// start over once a checkpoint has copied all of it with no write in between, which a checkpoint racing the writes
// rarely achieves: when the thread reports `restartFrames` or more in the log, and few of them left to copy, the main
// connection checkpoints the little that is left itself, between two writes, and the next write starts the log afresh
// (bounded, and a sync on the main thread per 32 MB of log instead of per 4 MB). Under heavy writes (a large delete)
// what the thread leaves can be thousands of frames, a second and more to copy on the main thread: it waits for a
// thread's checkpoint that leaves few, unless the log has grown to four times `restartFrames`. Even a few frames cost
// the main thread the sync of the database file (0.3-0.9 s during a 1M-fact bank's delete), so a writer that can wait
// between its transactions (a large delete) asks for `catchUp` there instead: the thread copies the log whole while
// that writer waits, the next write starts the log afresh, and the main connection is left out while it does so.
import { statSync } from 'node:fs';
import type { Db } from './database.ts';
import type { SqliteReaders } from './readers.ts';
import { prepared } from './statements.ts';

export interface CheckpointOptions {
  everyMs?: number;
  offloadBytes?: number;
  restartFrames?: number;
}

/** How long after a writer's last catchUp the main connection still leaves the log to the thread. */
const COOPERATING_MS = 2_000;

export class BackgroundCheckpoints {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private changes = -1;
  private offloaded = false;
  /** Frames in the log at the thread's last checkpoint. Even when it copied them all this stays: writes racing the
   * checkpoint may have added frames it did not see, and only a checkpoint with no write meanwhile lets the log start over. */
  private lastLog = 0;
  /** When a writer last asked to catch up: while one does, the main connection leaves the log to the thread. */
  private caughtUpAt = Number.NEGATIVE_INFINITY;
  private readonly everyMs: number;
  private readonly offloadBytes: number;
  private readonly restartFrames: number;

  constructor(
    private readonly db: Db,
    private readonly walFile: string,
    private readonly readers: Pick<SqliteReaders, 'checkpoint'>,
    options: CheckpointOptions = {},
  ) {
    this.everyMs = options.everyMs ?? 500;
    this.offloadBytes = options.offloadBytes ?? 3 << 20;
    this.restartFrames = options.restartFrames ?? 8192;
  }

  get offloading(): boolean {
    return this.offloaded;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.everyMs);
    this.timer.unref();
  }

  /** Takes checkpoints over once the log is large, then runs one when this connection wrote since the last. */
  tick(): Promise<void> | null {
    if (this.running || !this.db.open) return this.running;
    if (!this.offloaded) {
      if (walBytes(this.walFile) < this.offloadBytes) return null;
      this.db.pragma('wal_autocheckpoint = 0');
      this.offloaded = true;
    }
    const changes = prepared(this.db, 'SELECT total_changes() AS n').get() as { n: number };
    if (changes.n === this.changes) return null;
    this.changes = changes.n;
    return this.onThread((log, copied) => {
      const few = log - copied <= this.restartFrames / 8;
      const cooperating = performance.now() - this.caughtUpAt < COOPERATING_MS;
      if ((log >= this.restartFrames && few && !cooperating) || log >= 4 * this.restartFrames) this.checkpointHere();
    });
  }

  /**
   * For a writer between two of its transactions: once the log is long enough to start over, a checkpoint on the
   * reader thread while the writer waits for it. With no other write meanwhile it copies the log whole, and the next
   * write starts the log afresh; the main connection then never has to copy (and sync) it itself.
   */
  async catchUp(): Promise<void> {
    if (!this.offloaded) return;
    this.caughtUpAt = performance.now();
    if (this.lastLog < this.restartFrames) return;
    while (this.running) await this.running;
    if (this.lastLog < this.restartFrames || !this.db.open) return;
    await this.onThread(() => {});
    this.caughtUpAt = performance.now();
  }

  /** A checkpoint on the reader thread, then `then` with what it reported; here when there is no reader thread. */
  private onThread(then: (log: number, copied: number) => void): Promise<void> {
    this.running = this.readers
      .checkpoint()
      .then(
        ({ log, copied }) => {
          this.lastLog = log;
          then(log, copied);
        },
        () => this.checkpointHere(), // no reader thread: here, then
      )
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private checkpointHere(): void {
    if (this.db.open) this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  /** Stops the timer, waits for a running checkpoint, and gives checkpoints back to SQLite. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    if (this.offloaded && this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
    this.offloaded = false;
  }
}

function walBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // no log yet
  }
}
