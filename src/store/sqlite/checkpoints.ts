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
// thread's checkpoint that leaves few, unless the log has grown to four times `restartFrames`.
import { statSync } from 'node:fs';
import type { Db } from './database.ts';
import type { SqliteReaders } from './readers.ts';
import { prepared } from './statements.ts';

export interface CheckpointOptions {
  everyMs?: number;
  offloadBytes?: number;
  restartFrames?: number;
}

export class BackgroundCheckpoints {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private changes = -1;
  private offloaded = false;
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
    this.running = this.readers
      .checkpoint()
      .then(
        ({ log, copied }) => {
          const few = log - copied <= this.restartFrames / 8;
          if ((log >= this.restartFrames && few) || log >= 4 * this.restartFrames) this.checkpointHere();
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
