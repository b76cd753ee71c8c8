// Reader threads of the embedded store (piscina): long read-only queries run on other cores, each thread with its
// own connection to the database file, so several of them (and the main thread's own work) proceed at once.
import { Piscina } from 'piscina';
import { sibling, tsxExecArgv } from '../../worker-loader.ts';
import type { Bm25Passing, PassingHit } from './bm25.ts';
import type { ReadTask } from './reader-worker.ts';

/** Where reads may run off the main thread, and when they should: a bank's large reads (its keyword searches) run on a
 * reader thread beside the other work of a recall on this one. */
export interface ReadOffload {
  readers: SqliteReaders;
  /** The bank's size in facts, as far as known without a query (0 when not known). */
  sizeOf(bankId: string): number;
  /** Banks with at least this many facts are read on a reader thread. */
  minFacts: number;
}

/** The reader threads, when the bank is large enough for them and they have started (else null: read on this thread). */
export const readersFor = (offload: ReadOffload | null, bankId: string): SqliteReaders | null =>
  offload !== null && offload.sizeOf(bankId) >= offload.minFacts && offload.readers.started() ? offload.readers : null;

export class SqliteReaders {
  private pool: Piscina<ReadTask, unknown[]> | null = null;
  private warm = false;
  private starting: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly threads = 2,
  ) {}

  /**
   * Whether a thread has answered. A thread takes hundreds of milliseconds to start (more with TypeScript compiled on
   * the fly): the first ask starts one in the background and says no, so the read that asked runs on its own thread
   * rather than wait (a first recall of a large bank). Idle threads stop; starting one again is quick.
   */
  started(): boolean {
    void this.start();
    return this.warm;
  }

  /** Settles once a thread answers (or could not start: reads then stay on the caller's thread). */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.starting ??= this.run({ file: this.file, sql: 'SELECT 1', params: [] }).then(
      () => void (this.warm = true),
      () => undefined,
    );
    return this.starting;
  }

  /** A keyword table's best rows by BM25 that a check query passes (bm25Passing), on a reader thread. */
  passing(task: Bm25Passing): Promise<PassingHit[]> {
    return this.run({ file: this.file, passing: task }) as Promise<PassingHit[]>;
  }

  /** Copies what the write-ahead log holds into the database file, on a reader thread: the frames in the log, and how
   * many of them are copied. */
  async checkpoint(): Promise<{ log: number; copied: number }> {
    const [row] = (await this.run({ file: this.file, checkpoint: true })) as Array<{ log: number; checkpointed: number }>;
    return { log: row?.log ?? 0, copied: row?.checkpointed ?? 0 };
  }

  private run(task: ReadTask): Promise<unknown[]> {
    this.pool ??= new Piscina<ReadTask, unknown[]>({
      filename: sibling('reader-worker', import.meta.url).href,
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: 60_000,
      execArgv: tsxExecArgv(),
    });
    return this.pool.run(task);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    this.closed = true;
    this.warm = false;
    await pool?.destroy();
  }
}
