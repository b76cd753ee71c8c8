// The face of src/embed: the embedder and reranker ports, model ids and the model cache folder. Other folders import
// embed through this file only (src/layout.test.ts checks it).
export { DEFAULT_EMBEDDING_MODEL, GLOVE_ID } from './model-ids.ts';
export { DEFAULT_CACHE_DIR } from './paths.ts';
export type { Embedder, Reranker } from './ports.ts';
