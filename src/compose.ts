// The composition root: picks adapters from configuration and builds the engine, the consolidation worker
// and the HTTP routes of every module. The only module (with the CLI) that knows concrete adapters.
import { auditRoutes, consolidationRoutes, coreRoutes, reflectRoutes, type Routes, threadRoutes, usageRoutes } from './api/routes/index.ts';
import type { Config } from './config/index.ts';
import { attachConsolidation } from './consolidate/attach.ts';
import { consolidatorFor } from './consolidate/llm.ts';
import { workerOptions } from './consolidate/settings.ts';
import { ThreadLoop } from './consolidate/thread.ts';
import type { ConsolidationWorker } from './consolidate/worker.ts';
import { Activity } from './core/activity.ts';
import { Engine } from './engine.ts';
import { createEmbedder, createReranker } from './embed/select.ts';
import { describeLlm, resolveLlm } from './llm/config.ts';
import { configureLog, log } from './log.ts';
import { chooseAnswerer } from './reflect/choose.ts';
import { LlmExtractor } from './retain/llm-extractor.ts';
import { OfflineExtractor } from './retain/offline-extractor.ts';
import { PooledExtractor } from './retain/pooled-extractor.ts';
import type { MemoryStore } from './store/ports.ts';
import { SqliteStore } from './store/sqlite/store.ts';
import { SqliteThreadStore } from './store/sqlite/threads.ts';
import { SqliteUsageLedger } from './store/sqlite/usage.ts';
import { ThreadMemory } from './threads/memory.ts';
import type { RecallSettings } from './recall/types.ts';
import type { ThreadStore } from './threads/ports.ts';
import type { UsageLedger } from './llm/ledger.ts';

export interface Composed {
  engine: Engine;
  worker: ConsolidationWorker;
  threads: ThreadMemory;
  /** Where thread memory is kept (export and import read and write it directly). */
  threadStore: ThreadStore;
  /** One line naming the active store, embedder, reranker, extractor and LLM. */
  describe: string;
  /** Every route this process serves, core first (the one list createApp mounts). */
  routes: Routes[];
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
}

interface Stores {
  store: MemoryStore;
  /** The embedded store (null in server mode). */
  local: SqliteStore | null;
  threads: ThreadStore;
  ledger: UsageLedger;
}

/** The store, thread memory's store and the usage ledger: all in the embedded database, or all on the servers (so
 * API processes and workers keep nothing of their own: server mode opens no SQLite file). */
async function openStores(config: Config): Promise<Stores> {
  if (config.store.kind === 'server') {
    // Loaded only in server mode: the Neo4j and Qdrant clients cost the embedded default a second of start-up.
    const [{ ServerStore }, { Neo4jThreadStore }, { Neo4jUsageLedger }] = await Promise.all([
      import('./store/server/store.ts'), import('./store/neo4j/threads.ts'), import('./store/neo4j/usage.ts'),
    ]);
    const store = await ServerStore.open(config.store.server);
    return { store, local: null, threads: new Neo4jThreadStore(store.db), ledger: new Neo4jUsageLedger(store.db) };
  }
  const store = new SqliteStore({ dataDir: config.store.dataDir });
  return { store, local: store, threads: new SqliteThreadStore(store.db), ledger: new SqliteUsageLedger(store.db) };
}

export async function compose(config: Config, options: ComposeOptions = {}): Promise<Composed> {
  configureLog(config.log);
  const { store, local, threads: threadStore, ledger } = await openStores(config);
  const embedder = await createEmbedder(config.embed);
  const reranker = await createReranker(config.embed);
  const retainLlm = resolveLlm('retain', undefined, { llm: config.llm, ledger });
  // The offline extractor runs on the main thread, plus CAIRN_EXTRACT_THREADS worker threads when set.
  const extractThreads = config.retain.extractThreads;
  const extractor = retainLlm
    ? new LlmExtractor(retainLlm)
    : extractThreads > 0
      ? new PooledExtractor({ threads: extractThreads })
      : new OfflineExtractor();
  const activity = new Activity();
  const engine = new Engine({
    store, embedder: embedder.embedder, reranker: reranker.reranker, extractor, activity,
    ...(options.recallSettings ? { recallSettings: options.recallSettings } : {}),
  });
  // Banks whose consolidation resolves to a provider (environment or bank config) use the LLM consolidator; the
  // rest the offline one. resolveLlm already records every call in the ledger.
  const consolidator = consolidatorFor(embedder.embedder, (bank) => resolveLlm('consolidation', bank.config, { llm: config.llm, ledger }));
  const startWorker = options.startWorker ?? config.consolidate.embeddedWorker;
  const worker = attachConsolidation(engine, { consolidator, worker: workerOptions(config.consolidate) });
  if (startWorker && config.consolidate.workerThread) worker.runElsewhere(new ThreadLoop(config, worker, activity));
  if (startWorker) worker.start();
  const threads = new ThreadMemory({
    store: threadStore,
    banks: store,
    llmFor: (bank) => resolveLlm('threads', bank.config, { llm: config.llm, ledger }),
    bridge: async (bankId, items) => {
      await engine.retain(bankId, { items, documentMode: 'append' });
    },
  });
  const routes: Composed['routes'] = [
    ...coreRoutes(engine),
    threadRoutes({ memory: threads }),
    reflectRoutes(engine, (bank) => chooseAnswerer(resolveLlm('reflect', bank.config, { llm: config.llm, ledger }))),
    usageRoutes(engine, ledger),
    consolidationRoutes(engine, worker),
    auditRoutes(engine, worker),
  ];
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
  };
  return { engine, worker, threads, threadStore, describe, routes, shutdown };
}
