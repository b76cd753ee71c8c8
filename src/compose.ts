// The composition root: picks adapters from configuration and builds the engine and the HTTP routes of
// every module. The only module (with the CLI) that knows concrete adapters.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Config } from './config.ts';
import { Engine } from './engine.ts';
import { createEmbedder, createReranker } from './embed/select.ts';
import { describeLlm, resolveLlm } from './llm/config.ts';
import { log } from './log.ts';
import { reflectRoutes } from './api/routes/reflect.ts';
import { usageRoutes } from './api/routes/usage.ts';
import { chooseAnswerer } from './reflect/choose.ts';
import { LlmExtractor } from './retain/llm-extractor.ts';
import { OfflineExtractor } from './retain/offline-extractor.ts';
import { SqliteStore } from './store/sqlite/store.ts';
import { SqliteUsageLedger } from './store/sqlite/usage.ts';

export interface Composed {
  engine: Engine;
  /** One line naming the active store, embedder, reranker, extractor and LLM. */
  describe: string;
  /** Routes of the modules beyond the core (reflect, consolidation, audit, threads, usage). */
  routes: Array<(app: OpenAPIHono) => void>;
}

export async function compose(config: Config): Promise<Composed> {
  const store = new SqliteStore({ dataDir: config.dataDir });
  const ledger = new SqliteUsageLedger(store.db);
  const embedder = await createEmbedder(config.env);
  const reranker = await createReranker(config.env);
  const retainLlm = resolveLlm('retain', undefined, { env: config.env, ledger });
  const extractor = retainLlm ? new LlmExtractor(retainLlm) : new OfflineExtractor();
  const engine = new Engine({ store, embedder: embedder.embedder, reranker: reranker.reranker, extractor });
  const routes: Composed['routes'] = [
    reflectRoutes(engine, (bank) => chooseAnswerer(resolveLlm('reflect', bank.config, { env: config.env, ledger }))),
    usageRoutes(engine, ledger),
  ];
  const describe = [
    `store: sqlite (${config.dataDir})`,
    embedder.description,
    reranker.description,
    `extractor: ${extractor.name}`,
    describeLlm(config.env),
  ].join('; ');
  log.info(describe);
  return { engine, describe, routes };
}
