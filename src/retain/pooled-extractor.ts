// The offline extractor on worker threads (piscina): its NLP (compromise, chrono) is CPU-bound and costs most
// of a retain, so chunks are extracted on several cores while the main thread embeds and writes. Same output as
// OfflineExtractor, which each thread runs; threads start on first use, are shared by every engine of the
// process, and stop when idle.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { tsxExecArgv } from '../worker-loader.ts';
import type { ExtractInput, ExtractedFact, Extractor } from './extractor.ts';

export interface PooledExtractorOptions {
  /** Worker threads (default: the machine's cores, at most 4). */
  threads?: number;
  /** A thread idle this long stops (default 30 s). */
  idleTimeoutMs?: number;
}

/** One pool per thread count for the whole process: engines opened one after another reuse warm threads. */
const pools = new Map<number, Piscina<ExtractInput, ExtractedFact[]>>();

function poolOf(threads: number, idleTimeoutMs: number): Piscina<ExtractInput, ExtractedFact[]> {
  let pool = pools.get(threads);
  if (!pool) {
    pool = new Piscina({
      filename: new URL('./offline-extractor-worker.ts', import.meta.url).href,
      minThreads: 0,
      maxThreads: threads,
      // Idle threads do not keep the process alive (piscina unrefs them) and stop after this long.
      idleTimeout: idleTimeoutMs,
      execArgv: tsxExecArgv(),
    });
    pools.set(threads, pool);
  }
  return pool;
}

export class PooledExtractor implements Extractor {
  readonly name = 'offline';
  readonly concurrency: number;
  private readonly pool: Piscina<ExtractInput, ExtractedFact[]>;

  constructor(options: PooledExtractorOptions = {}) {
    const threads = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
    // Two tasks in flight per thread keep every thread busy while results travel back.
    this.concurrency = threads * 2;
    this.pool = poolOf(threads, options.idleTimeoutMs ?? 30_000);
  }

  extract(input: ExtractInput): Promise<ExtractedFact[]> {
    return this.pool.run(input);
  }
}
