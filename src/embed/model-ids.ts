// The default transformer models, apart from their adapter (transformers.ts): choosing a model must not load
// transformers.js, its ONNX runtime and image libraries, which the offline default never uses.
export const DEFAULT_EMBEDDING_MODEL = 'Xenova/bge-small-en-v1.5';
export const DEFAULT_RERANKER_MODEL = 'Xenova/ms-marco-MiniLM-L-6-v2';
