// The composition root: picks adapters from configuration and builds the engine, the consolidation worker
// and the HTTP routes of every module. The only module (with the CLI) that knows concrete adapters.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { join } from 'node:path';
import { auditRoutes } from './api/routes/audit.ts';
import { consolidationRoutes } from './api/routes/consolidation.ts';
import { reflectRoutes } from './api/routes/reflect.ts';
import { threadRoutes } from './api/routes/threads.ts';
import { usageRoutes } from './api/routes/usage.ts';
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
import { openDatabase } from './store/sqlite/database.ts';
import { SqliteStore } from './store/sqlite/store.ts';
import { SqliteThreadStore } from './store/sqlite/threads.ts';
import { SqliteUsageLedger } from './store/sqlite/usage.ts';
import { ThreadMemory } from './threads/memory.ts';
import type { RecallSettings } from './recall/types.ts';
import type { ThreadStore } from './threads/ports.ts';

export interface Composed {
  engine: Engine;
  worker: ConsolidationWorker;
  threads: ThreadMemory;
  /** Where thread memory is kept (export and import read and write it directly). */
  threadStore: ThreadStore;
  /** One line naming the active store, embedder, reranker, extractor and LLM. */
  describe: string;
  /** Routes of the modules beyond the core (reflect, consolidation, audit, usage). */
  routes: Array<(app: OpenAPIHono) => void>;
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

async function openStore(config: Config): Promise<{ store: MemoryStore; local: SqliteStore | null }> {
  if (config.store.kind === 'server') {
    // Loaded only in server mode: the Neo4j and Qdrant clients cost the embedded default a second of start-up.
    const { ServerStore } = await import('./store/server/store.ts');
    return { store: await ServerStore.open(config.store.server), local: null };
  }
  const store = new SqliteStore({ dataDir: config.store.dataDir });
  return { store, local: store };
}

export async function compose(config: Config, options: ComposeOptions = {}): Promise<Composed> {
  configureLog(config.log);
  const { store, local } = await openStore(config);
  // The ledger and thread memory live in the embedded database; in server mode each process keeps a local
  // SQLite file for them (no Neo4j adapter for either yet).
  const localDb = local?.db ?? openDatabase(join(config.store.dataDir, 'local.db'));
  const ledger = new SqliteUsageLedger(localDb);
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
  const threadStore = new SqliteThreadStore(localDb);
  const threads = new ThreadMemory({
    store: threadStore,
    banks: store,
    llmFor: (bank) => resolveLlm('threads', bank.config, { llm: config.llm, ledger }),
    bridge: async (bankId, items) => {
      await engine.retain(bankId, { items, documentMode: 'append' });
    },
  });
  const routes: Composed['routes'] = [
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
