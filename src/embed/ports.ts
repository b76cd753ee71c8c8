// Embedder and reranker ports. Adapters: transformers.js (real models) and GloVe (offline word vectors).

export interface Embedder {
  /** Stable id of the model, recorded with every vector (a bank never mixes two). */
  readonly id: string;
  readonly dimensions: number;
  /** Unit-length vectors, one per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Embedders of words only (GloVe): the `n` words nearest to `word` in meaning, nearest first. */
  similarWords?(word: string, n: number): Array<{ word: string; similarity: number }>;
}

export interface Reranker {
  readonly id: string;
  /** A relevance score per document for the query (higher is more relevant), in order. */
  score(query: string, documents: string[]): Promise<number[]>;
}
