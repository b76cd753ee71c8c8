// Server-mode connection settings from the environment:
//
//   NEO4J_URI        bolt or neo4j URI, e.g. bolt://localhost:7687 (required)
//   NEO4J_USER       default 'neo4j'
//   NEO4J_PASSWORD   required
//   NEO4J_DATABASE   default: the server's default database
//   QDRANT_URL       e.g. http://localhost:6333 (required)
//   QDRANT_API_KEY   optional
//   CAIRN_QDRANT_PREFIX  collection name prefix (default 'cairn'), to keep several deployments in one Qdrant apart
import type { Neo4jOptions } from '../neo4j/connection.ts';
import type { QdrantOptions } from '../qdrant/vectors.ts';

export interface ServerStoreOptions {
  neo4j: Neo4jOptions;
  qdrant: QdrantOptions;
}

/** True when the environment names both servers (what the server conformance suite and `CAIRN_STORE=server` need). */
export const hasServerEnv = (env: NodeJS.ProcessEnv): boolean => Boolean(env.NEO4J_URI && env.QDRANT_URL);

export function serverOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerStoreOptions {
  const missing = ['NEO4J_URI', 'NEO4J_PASSWORD', 'QDRANT_URL'].filter((k) => !env[k]);
  if (missing.length) throw new Error(`server mode needs ${missing.join(', ')} (see the README's server-mode section)`);
  return {
    neo4j: {
      uri: String(env.NEO4J_URI),
      user: env.NEO4J_USER || 'neo4j',
      password: String(env.NEO4J_PASSWORD),
      database: env.NEO4J_DATABASE || undefined,
    },
    qdrant: {
      url: String(env.QDRANT_URL),
      apiKey: env.QDRANT_API_KEY || undefined,
      collectionPrefix: env.CAIRN_QDRANT_PREFIX || undefined,
    },
  };
}
