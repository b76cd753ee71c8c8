// Where memory is kept: the embedded store's data directory (also where server mode keeps its local SQLite file of
// thread memory and the usage ledger), or Neo4j + Qdrant.
//   CAIRN_DATA_DIR       the embedded store's directory (default ./data)
//   CAIRN_STORE          embedded (default) | server
//   NEO4J_URI            bolt or neo4j URI, e.g. bolt://localhost:7687 (server mode: required)
//   NEO4J_USER           default 'neo4j'
//   NEO4J_PASSWORD       server mode: required
//   NEO4J_DATABASE       default: the server's default database
//   QDRANT_URL           e.g. http://localhost:6333 (server mode: required)
//   QDRANT_API_KEY       optional
//   CAIRN_QDRANT_PREFIX  collection name prefix (default 'cairn'), to keep several deployments in one Qdrant apart
import { z } from 'zod';
import { oneOf, section, verbatim, type Env } from './variables.ts';

/** What the server store connects to. */
export interface ServerStoreConfig {
  neo4j: { uri: string; user: string; password: string; database: string | undefined };
  qdrant: { url: string; apiKey: string | undefined; collectionPrefix: string | undefined };
}

export type StoreConfig = { dataDir: string } & ({ kind: 'embedded' } | { kind: 'server'; server: ServerStoreConfig });

const SERVER_REQUIRED = ['NEO4J_URI', 'NEO4J_PASSWORD', 'QDRANT_URL'] as const;

/** True when the variables name both servers (what the server conformance suite needs to run). */
export const hasServerEnv = (env: Env): boolean => Boolean(env.NEO4J_URI && env.QDRANT_URL);

export const STORE = section(
  z
    .object({
      CAIRN_DATA_DIR: verbatim(),
      CAIRN_STORE: oneOf(['embedded', 'server']),
      NEO4J_URI: verbatim(),
      NEO4J_USER: verbatim(),
      NEO4J_PASSWORD: verbatim(),
      NEO4J_DATABASE: verbatim(),
      QDRANT_URL: verbatim(),
      QDRANT_API_KEY: verbatim(),
      CAIRN_QDRANT_PREFIX: verbatim(),
    })
    .superRefine((v, ctx) => {
      if (v.CAIRN_STORE !== 'server') return;
      const missing = SERVER_REQUIRED.filter((name) => v[name] === undefined);
      if (missing.length)
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `CAIRN_STORE=server needs ${missing.join(', ')} (see the README's server-mode section)`,
        });
    }),
  (v): StoreConfig => {
    const dataDir = v.CAIRN_DATA_DIR ?? 'data';
    if (v.CAIRN_STORE !== 'server') return { dataDir, kind: 'embedded' };
    return {
      dataDir,
      kind: 'server',
      server: {
        neo4j: { uri: String(v.NEO4J_URI), user: v.NEO4J_USER ?? 'neo4j', password: String(v.NEO4J_PASSWORD), database: v.NEO4J_DATABASE },
        qdrant: { url: String(v.QDRANT_URL), apiKey: v.QDRANT_API_KEY, collectionPrefix: v.CAIRN_QDRANT_PREFIX },
      },
    };
  },
);
