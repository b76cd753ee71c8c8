// What the server store connects to: the Neo4j and Qdrant adapters' options (the configuration's store section,
// config/store.ts, reads them from NEO4J_*, QDRANT_* and CAIRN_QDRANT_PREFIX).
import type { Neo4jOptions } from '../neo4j/connection.ts';
import type { QdrantOptions } from '../qdrant/vectors.ts';

export interface ServerStoreOptions {
  neo4j: Neo4jOptions;
  qdrant: QdrantOptions;
}
