// Reader threads of the embedded store (piscina): long read-only queries run on other cores, each thread with its
// own connection to the database file, so several of them (and the main thread's own work) proceed at once.
import { Piscina } from 'piscina';
import { sibling, tsxExecArgv } from '../../worker-loader.ts';
import type { Bm25Hit, Bm25Search } from './bm25.ts';
import type { ReadTask } from './reader-worker.ts';

export class SqliteReaders {
  private pool: Piscina<ReadTask, unknown[]> | null = null;

  constructor(
    private readonly file: string,
    private readonly threads = 2,
  ) {}

  /** The rows of a read-only query, read on a reader thread (started on first use; idle ones stop). */
  all(sql: string, params: unknown[]): Promise<unknown[]> {
    return this.run({ file: this.file, sql, params });
  }

  /** A keyword table's best rows by BM25, scored on a reader thread. */
  bm25(search: Bm25Search): Promise<Bm25Hit[]> {
    return this.run({ file: this.file, bm25: search }) as Promise<Bm25Hit[]>;
  }

  /** Copies what the write-ahead log holds into the database file, on a reader thread; the frames in the log. */
  async checkpoint(): Promise<number> {
    const [row] = (await this.run({ file: this.file, checkpoint: true })) as Array<{ log: number }>;
    return row?.log ?? 0;
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
    await pool?.destroy();
  }
}
