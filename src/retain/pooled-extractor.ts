// The offline extractor on worker threads (piscina) beside the main thread: its NLP (compromise, chrono) is
// CPU-bound and costs most of a retain, so a request's chunks are extracted on several cores at once and the main
// thread is left to embed, link and write. Same output as OfflineExtractor, which every thread runs. A thread takes
// seconds to load the NLP models, so small workloads never wait for one: everything is extracted here until the
// process has extracted WARM_AFTER chunks, then the threads start in the background and, once they have answered a
// first (empty) task, take every chunk (a long ingest keeps the main thread busy with its writes; extracting there
// too made it the bottleneck). Threads are shared by every engine of the process and stop when idle.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Piscina } from 'piscina';
import { SerialQueue } from '../core/index.ts';
import { log } from '../log.ts';
import { sibling, tsxExecArgv } from '../worker-loader.ts';
import type { ExtractInput, ExtractedFact, Extractor } from './extractor.ts';
import { OfflineExtractor } from './offline-extractor.ts';

export interface PooledExtractorOptions {
  /** Worker threads beside the main thread (the configuration's CAIRN_EXTRACT_THREADS, whose default is per core).
   * Each costs seconds of CPU to start (TypeScript and the NLP models), paid only once a process has extracted
   * WARM_AFTER chunks. */
  threads: number;
  /** A thread idle this long stops (default 30 s). */
  idleTimeoutMs?: number;
  /** The threads' module (default: offline-extractor-worker beside this one, .ts or .js as this module is). */
  entry?: URL;
  /** Chunks the process extracts on its own before it starts the threads (default WARM_AFTER). */
  warmAfter?: number;
}

/** Chunks this process extracts on its own before it starts worker threads: a few seconds of extraction here, so the
 * seconds of CPU the threads take to start are spent only on ingests long enough to repay them (a CLI retain of some
 * hundred chunks ran slower with threads than without). */
const WARM_AFTER = 256;

interface SharedPool {
  pool: Piscina<ExtractInput, ExtractedFact[]>;
  /** Resolved once a thread has answered or failed to start; null until the threads were asked to start. */
  ready: Promise<void> | null;
  /** Settles `ready` when a thread cannot start (piscina then leaves the first task queued for good). */
  startFailed: (() => void) | null;
  warm: boolean;
}

/** One pool per thread count (and entry) for the whole process: engines opened one after another reuse warm threads. */
const pools = new Map<string, SharedPool>();
let extractedHere = 0;
/** Extractions on this thread run one at a time, each in a turn of the event loop of its own: started together (a
 * request's chunks, several requests), their turns all fell in one pass over the queued callbacks, and the server
 * answered nothing else for a second or more. */
const localTurns = new SerialQueue();

function poolOf(threads: number, idleTimeoutMs: number, entry: URL): SharedPool {
  const key = `${threads} ${entry.href}`;
  let shared = pools.get(key);
  if (!shared) {
    const pool = new Piscina<ExtractInput, ExtractedFact[]>({
      filename: entry.href,
      minThreads: 0,
      maxThreads: threads,
      // Idle threads do not keep the process alive (piscina unrefs them) and stop after this long.
      idleTimeout: idleTimeoutMs,
      execArgv: tsxExecArgv(),
    });
    // A thread that cannot start (or dies) is an 'error' event on the pool, which would end the process unheard. A
    // task it was running is rejected (and extracted here); one queued for a thread that failed to start is never
    // run, so the first task's wait (ready) ends here and the extraction stays on this thread.
    pool.on('error', (err: unknown) => {
      log.warn(`offline extractor thread: ${err instanceof Error ? err.message : String(err)}`);
      created.startFailed?.();
    });
    const created: SharedPool = { pool, ready: null, startFailed: null, warm: false };
    shared = created;
    pools.set(key, shared);
  }
  return shared;
}

/** True while warm threads run. Once every thread stopped (idle, or died), the work is the main thread's again until
 * the process has extracted WARM_AFTER more chunks: a thread takes seconds to start, which no small retain waits for. */
function warmNow(shared: SharedPool): boolean {
  if (shared.warm && shared.pool.threads.length === 0) {
    shared.warm = false;
    shared.ready = null;
    extractedHere = 0;
  }
  return shared.warm;
}

const PROBE: ExtractInput = { bankId: '', text: '', speaker: null, fromAgent: false, timestamp: new Date(0).toISOString(), context: null };

export class PooledExtractor implements Extractor {
  readonly name = 'offline';
  readonly concurrency: number;
  private readonly local = new OfflineExtractor();
  private readonly shared: SharedPool | null;
  private readonly threads: number;
  private readonly warmAfter: number;

  constructor(options: PooledExtractorOptions) {
    this.threads = Math.max(0, options.threads);
    this.warmAfter = options.warmAfter ?? WARM_AFTER;
    this.shared =
      this.threads > 0
        ? poolOf(this.threads, options.idleTimeoutMs ?? 30_000, options.entry ?? sibling('offline-extractor-worker', import.meta.url))
        : null;
    // Two tasks in flight per thread keep every thread busy while results travel back (one more until they are warm).
    this.concurrency = this.threads * 2 + 1;
  }

  /** True once worker threads have started and take work. */
  get threadsReady(): boolean {
    return this.shared ? warmNow(this.shared) : false;
  }

  /** Settles once the threads were asked to start and either answered or failed (never rejects). */
  get threadsSettled(): Promise<void> | null {
    return this.shared?.ready ?? null;
  }

  async extract(input: ExtractInput): Promise<ExtractedFact[]> {
    const shared = this.shared;
    // A task the threads could not run (a thread that died) is extracted here: same output.
    if (shared && warmNow(shared)) return shared.pool.run(input).catch(() => this.local.extract(input));
    if (shared && !shared.ready && ++extractedHere >= this.warmAfter) {
      shared.ready = new Promise<void>((settle) => {
        // Threads that cannot start leave all the work here.
        shared.startFailed = settle;
        shared.pool
          .run(PROBE)
          .then(
            () => void (shared.warm = true),
            () => undefined,
          )
          .finally(settle);
      }).finally(() => void (shared.startFailed = null));
    }
    // Let the threads' answers, timers and requests in before this thread is busy again (an extraction here blocks
    // it for milliseconds).
    return localTurns.run('', async () => {
      await nextTurn();
      return this.local.extract(input);
    });
  }
}
