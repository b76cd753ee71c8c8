// Server-mode settings from the environment: what is required, what defaults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasServerEnv, loadConfig, type Env } from './index.ts';

/** The server store's settings that `env` gives with CAIRN_STORE=server. */
const serverOptionsFrom = (env: Env) => {
  const store = loadConfig({ ...env, CAIRN_STORE: 'server' }).store;
  assert.equal(store.kind, 'server');
  return store.kind === 'server' ? store.server : assert.fail('not server mode');
};

test('server mode is configured when both servers are named', () => {
  assert.equal(hasServerEnv({}), false);
  assert.equal(hasServerEnv({ NEO4J_URI: 'bolt://x:7687' }), false);
  assert.equal(hasServerEnv({ NEO4J_URI: 'bolt://x:7687', QDRANT_URL: 'http://q:6333' }), true);
});

test('the settings, with their defaults', () => {
  assert.deepEqual(serverOptionsFrom({ NEO4J_URI: 'bolt://x:7687', NEO4J_PASSWORD: 'pw', QDRANT_URL: 'http://q:6333' }), {
    neo4j: { uri: 'bolt://x:7687', user: 'neo4j', password: 'pw', database: undefined },
    qdrant: { url: 'http://q:6333', apiKey: undefined, collectionPrefix: undefined },
  });
  const full = serverOptionsFrom({
    NEO4J_URI: 'neo4j+s://x',
    NEO4J_USER: 'cairn',
    NEO4J_PASSWORD: 'pw',
    NEO4J_DATABASE: 'memory',
    QDRANT_URL: 'https://q',
    QDRANT_API_KEY: 'k',
    CAIRN_QDRANT_PREFIX: 'prod',
  });
  assert.equal(full.neo4j.user, 'cairn');
  assert.equal(full.neo4j.database, 'memory');
  assert.equal(full.qdrant.apiKey, 'k');
  assert.equal(full.qdrant.collectionPrefix, 'prod');
});

test('missing settings are named in the error', () => {
  assert.throws(() => serverOptionsFrom({ NEO4J_URI: 'bolt://x' }), /NEO4J_PASSWORD, QDRANT_URL/);
});
