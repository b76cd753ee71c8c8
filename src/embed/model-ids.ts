// The embedders' ids and default transformer models, apart from their adapters (glove.ts, transformers.ts):
// choosing a model must not load transformers.js, its ONNX runtime and image libraries, which the offline default
// never uses.

/** The offline GloVe embedder's id, recorded with every vector it made. */
export const GLOVE_ID = 'glove:wink-sg-100d:v1';
export const DEFAULT_EMBEDDING_MODEL = 'Xenova/bge-small-en-v1.5';
export const DEFAULT_RERANKER_MODEL = 'Xenova/ms-marco-MiniLM-L-6-v2';
