// The composition root: picks adapters from configuration and builds the engine, the consolidation worker
// and the HTTP routes of every module. The only module that knows concrete adapters.
import type { MiddlewareHandler } from 'hono';
import { mcpRoutes } from './mcp/index.ts';
import { Metrics, metricsRoutes, requestMetrics } from './metrics/index.ts';
import { requestSpans, tracingFromConfig } from './telemetry/index.ts';
import { uiRoutes } from './ui/index.ts';
import { auditRoutes, consolidationRoutes, coreRoutes, reflectRoutes, type Routes, threadRoutes, usageRoutes } from './api/routes/index.ts';
import type { Config } from './config/index.ts';
import { attachConsolidation } from './consolidate/attach.ts';
import type { Consolidation } from './consolidate/consolidation.ts';
import type { Consolidator } from './consolidate/consolidator.ts';
import { consolidatorFor } from './consolidate/llm.ts';
import { workerOptions } from './consolidate/settings.ts';
import { ThreadLoop } from './consolidate/thread.ts';
import type { ConsolidationWorker, WorkerOptions } from './consolidate/worker.ts';
import { Activity, readsFirst } from './core/index.ts';
import { Engine } from './engine.ts';
import type { Embedder } from './embed/ports.ts';
import { createEmbedder, createReranker } from './embed/select.ts';
import { describeLlm, resolveLlm } from './llm/config.ts';
import { Usage } from './llm/usage.ts';
import { configureLog, log } from './log.ts';
import { Portability } from './portability/portability.ts';
import { chooseAnswerer } from './reflect/choose.ts';
import { LlmExtractor } from './retain/llm-extractor.ts';
import { OfflineExtractor } from './retain/offline-extractor.ts';
import { PooledExtractor } from './retain/pooled-extractor.ts';
import type { MemoryStore } from './store/ports.ts';
import type { ReconcileOptions, ReconcileReport } from './store/reconcile.ts';
import type { ServerStore } from './store/server/store.ts';
import { SqliteStore } from './store/sqlite/store.ts';
import { SqliteThreadStore } from './store/sqlite/threads.ts';
import { SqliteUsageLedger } from './store/sqlite/usage.ts';
import { ThreadMemory } from './threads/memory.ts';
import type { RecallSettings } from './recall/types.ts';
import type { ThreadStore } from './threads/ports.ts';
import type { UsageEntry, UsageLedger } from './llm/ledger.ts';

export interface Composed {
  /** The use cases: banks, retain, recall, operations, and the facades engine.memories, engine.audit, engine.reflect. */
  engine: Engine;
  /** Consolidation's use cases (status, runs, dead letters) around its worker. */
  consolidation: Consolidation;
  /** consolidation.worker. */
  worker: ConsolidationWorker;
  threads: ThreadMemory;
  /** Export and import of a bank, its thread memory included. */
  portability: Portability;
  /** Repairs drift between Neo4j and Qdrant (server mode); null on the embedded store, which has none to repair. */
  reconcile(options: Omit<ReconcileOptions, 'embedder'>): Promise<ReconcileReport | null>;
  /** The store and thread memory's store themselves: only for tests and benchmarks that look beneath the use cases. */
  store: MemoryStore;
  threadStore: ThreadStore;
  /** One line naming the active store, embedder, reranker, extractor and LLM. */
  describe: string;
  /** Every route this process serves, core first (the one list createApp mounts). */
  routes: Routes[];
  /** Middleware every request passes first (createApp installs it before auth): request metrics. */
  middleware: MiddlewareHandler[];
  /** The Prometheus series this process exposes at /metrics. */
  metrics: Metrics;
  /** Stops the worker after its batch, lets thread memory finish, then closes the store. */
  shutdown(): Promise<void>;
}

export interface ComposeOptions {
  /** Run the consolidation loop in this process (default: config.consolidate.embeddedWorker). */
  startWorker?: boolean;
  /** Overrides of recall's tunables (benchmarks tune with them). */
  recallSettings?: Partial<RecallSettings>;
  /** Log the line naming the active parts (default true; the consolidation thread's own composition does not). */
  announce?: boolean;
  /** Another consolidator than the configuration's, over the active embedder (tests, benchmarks). */
  consolidator?: (embedder: Embedder) => Consolidator;
  /** Worker options over the configuration's (`cairn worker`'s hooks, the consolidation thread's id). */
  worker?: Partial<WorkerOptions>;
  /** Finish deletes an earlier process left unfinished, in the embedded store (default true; the consolidation
   * thread's connection leaves it to the API's, which would otherwise race it for the same purges). */
  resumeDeletes?: boolean;
  /** Hears every LLM call (the consolidation thread passes its calls to the API process's metrics). */
  onLlmCall?: (entry: UsageEntry) => void;
  /** Collect Node process metrics (default true; the consolidation thread serves no /metrics and leaves them out). */
  processMetrics?: boolean;
}

interface Stores {
  store: MemoryStore;
  /** The embedded store (null in server mode). */
  local: SqliteStore | null;
  /** The server store (null in embedded mode). */
  server: ServerStore | null;
  threads: ThreadStore;
  ledger: UsageLedger;
}

/** The store, thread memory's store and the usage ledger: all in the embedded database, or all on the servers (so
 * API processes and workers keep nothing of their own: server mode opens no SQLite file). */
async function openStores(config: Config, activity: Activity, resumeDeletes = true): Promise<Stores> {
  if (config.store.kind === 'server') {
    // Loaded only in server mode: the Neo4j and Qdrant clients cost the embedded default a second of start-up.
    const [{ ServerStore }, { Neo4jThreadStore }, { Neo4jUsageLedger }] = await Promise.all([
      import('./store/server/store.ts'),
      import('./store/neo4j/threads.ts'),
      import('./store/neo4j/usage.ts'),
    ]);
    const store = await ServerStore.open(config.store.server);
    return { store, local: null, server: store, threads: new Neo4jThreadStore(store.db), ledger: new Neo4jUsageLedger(store.db) };
  }
  // A large delete's steps give way to recalls of this process (reads first).
  const store = new SqliteStore({ dataDir: config.store.dataDir, resumePurges: resumeDeletes, purgePause: readsFirst(activity) });
  return { store, local: store, server: null, threads: new SqliteThreadStore(store.db), ledger: new SqliteUsageLedger(store.db) };
}

export async function compose(config: Config, options: ComposeOptions = {}): Promise<Composed> {
  configureLog(config.log);
  // Traces only when an OTLP endpoint is configured; before anything else, so every later step is traced.
  const tracing = tracingFromConfig(config.telemetry);
  // Recalls and retains running in this process: background work steps aside for them.
  const activity = new Activity();
  const stores = await openStores(config, activity, options.resumeDeletes);
  const { store, local, server, threads: threadStore } = stores;
  const metrics = new Metrics({ processMetrics: options.processMetrics });
  // Every LLM call is recorded in the ledger: counting there gives the metrics each call, failed ones included.
  const ledger: UsageLedger = {
    record: async (entry) => {
      metrics.observeLlm(entry);
      options.onLlmCall?.(entry);
      await stores.ledger.record(entry);
    },
    query: (query) => stores.ledger.query(query),
  };
  const embedder = await createEmbedder(config.embed);
  const reranker = await createReranker(config.embed);
  const retainLlm = resolveLlm('retain', undefined, { llm: config.llm, ledger });
  // The offline extractor runs on CAIRN_EXTRACT_THREADS worker threads once a process has extracted a few chunks
  // on its main thread (0: on the main thread only).
  const extractThreads = config.retain.extractThreads;
  const extractor = retainLlm
    ? new LlmExtractor(retainLlm)
    : extractThreads > 0
      ? new PooledExtractor({ threads: extractThreads })
      : new OfflineExtractor();
  const engine = new Engine({
    store,
    embedder: embedder.embedder,
    reranker: reranker.reranker,
    extractor,
    activity,
    ...(options.recallSettings ? { recallSettings: options.recallSettings } : {}),
  });
  // Banks whose consolidation resolves to a provider (environment or bank config) use the LLM consolidator; the
  // rest the offline one. resolveLlm already records every call in the ledger.
  const consolidator =
    options.consolidator?.(embedder.embedder) ??
    consolidatorFor(embedder.embedder, (bank) => resolveLlm('consolidation', bank.config, { llm: config.llm, ledger }));
  const startWorker = options.startWorker ?? config.consolidate.embeddedWorker;
  const consolidation = attachConsolidation(
    engine,
    { store, embedder: embedder.embedder },
    {
      consolidator,
      worker: { ...workerOptions(config.consolidate), ...options.worker },
    },
  );
  const { worker } = consolidation;
  if (startWorker && config.consolidate.workerThread)
    worker.runElsewhere(new ThreadLoop(config, worker, activity, (entry) => metrics.observeLlm(entry)));
  if (startWorker) worker.start();
  const threads = new ThreadMemory({
    store: threadStore,
    banks: store,
    llmFor: (bank) => resolveLlm('threads', bank.config, { llm: config.llm, ledger }),
    bridge: async (bankId, items) => {
      await engine.retain(bankId, { items, documentMode: 'append' });
    },
  });
  engine.events.on('retained', (bankId, result, input) => metrics.observeRetain(bankId, result, input));
  engine.events.on('recalled', (_bankId, timings) => metrics.observeRecall(timings));
  engine.events.on('bankDeleted', (bankId) => metrics.forgetBank(bankId));
  threads.events.tap((event) => metrics.observeThreadEvent(event));
  metrics.readConsolidation(async (limit) => {
    const banks = (await engine.listBanks()).slice(0, limit);
    // A bank deleted since the list is left out.
    const statuses = await Promise.all(banks.map((b) => consolidation.status(b.id).catch(() => null)));
    return statuses.filter((s) => s !== null);
  });
  const routes: Composed['routes'] = [
    ...coreRoutes(engine),
    threadRoutes({ memory: threads }),
    reflectRoutes(engine, (bank) => chooseAnswerer(resolveLlm('reflect', bank.config, { llm: config.llm, ledger }))),
    usageRoutes(new Usage(ledger, (bankId) => engine.requireBank(bankId))),
    consolidationRoutes(engine, consolidation),
    auditRoutes(engine),
    mcpRoutes(),
    metricsRoutes(metrics),
    uiRoutes(),
  ];
  const portability = new Portability({ store, embedder: embedder.embedder, threads: threadStore });
  const reconcile = async (o: Omit<ReconcileOptions, 'embedder'>): Promise<ReconcileReport | null> =>
    server ? (await import('./store/reconcile.ts')).reconcile(server, { ...o, embedder: embedder.embedder }) : null;
  const describe = [
    `store: ${store.name}${local ? ` (${config.store.dataDir})` : ''}`,
    embedder.description,
    reranker.description,
    `extractor: ${extractor.name}`,
    describeLlm(config.llm),
    `worker: ${startWorker ? (config.consolidate.workerThread ? 'in process (own thread)' : 'in process (API thread)') : 'off'}`,
  ].join('; ');
  if (options.announce !== false) log.info(describe);
  const shutdown = async (): Promise<void> => {
    await worker.stop();
    await threads.idle();
    await engine.close();
    await tracing?.shutdown(); // sends the spans still buffered
  };
  const middleware = [requestMetrics(metrics), ...(tracing ? [requestSpans()] : [])];
  return {
    engine,
    consolidation,
    worker,
    threads,
    portability,
    reconcile,
    store,
    threadStore,
    describe,
    routes,
    middleware,
    metrics,
    shutdown,
  };
}
