// The composition root: picks adapters from configuration and builds the engine. The only module (with the
// CLI) that knows concrete adapters.
import type { Config } from './config.ts';
import { Engine } from './engine.ts';
import { createEmbedder, createReranker } from './embed/select.ts';
import { log } from './log.ts';
import { OfflineExtractor } from './retain/offline-extractor.ts';
import { SqliteStore } from './store/sqlite/store.ts';

export interface Composed {
  engine: Engine;
  describe: string;
}

export async function compose(config: Config): Promise<Composed> {
  const store = new SqliteStore({ dataDir: config.dataDir });
  const embedder = await createEmbedder(config.env);
  const reranker = await createReranker(config.env);
  const extractor = new OfflineExtractor();
  const engine = new Engine({ store, embedder: embedder.embedder, reranker: reranker.reranker, extractor });
  const describe = `store: sqlite (${config.dataDir}); ${embedder.description}; ${reranker.description}; extractor: ${extractor.name}`;
  log.info(describe);
  return { engine, describe };
}
