// The shared full-text indexes of 003 are replaced by each bank's own (code migration 005, src/store/neo4j/
// keyword-schema.ts): Lucene keeps BM25 statistics per index, so a shared index let one bank's content change
// another's scores. Nothing queries these any more.
DROP INDEX fact_text IF EXISTS;
DROP INDEX chunk_text IF EXISTS;
