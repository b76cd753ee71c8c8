// The embedded store's vector index (vector-index.ts) and the stored form of a vector (flat.ts).
export { decodeVector, encodeVector, NATIVE_SCAN_MIN } from './flat.ts';
export { SqliteVectorIndex, type SqliteVectorIndexOptions, type VectorBankStats } from './vector-index.ts';
