// loadConfig: every default, how values are read, and a bad value refused with a message that names the variable,
// its value and what is allowed.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CONFIG_VARIABLES, ConfigError, loadConfig, type Env } from './index.ts';
import { LLM_OPERATIONS } from './llm.ts';
import { defaultExtractThreads } from './retain.ts';

const LLM_NAMES = ['PROVIDER', 'MODEL', 'BASE_URL', 'API_KEY', 'STRUCTURED_OUTPUT', 'TIMEOUT_MS', 'MAX_RETRIES', 'CONCURRENCY'];

/** loadConfig(env) throws a ConfigError whose message is exactly `message`. */
const refuses = (env: Env, message: string): void => {
  assert.throws(
    () => loadConfig(env),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError, `a ConfigError, got ${String(e)}`);
      assert.equal(e.message, message);
      return true;
    },
  );
};

test('nothing set: the offline defaults', () => {
  const config = loadConfig({});
  const { llm, ...rest } = config;
  assert.deepEqual(rest, {
    http: { host: '127.0.0.1', port: 8787, apiKey: undefined },
    store: { dataDir: 'data', kind: 'embedded' },
    embed: { embedder: { kind: 'glove' }, reranker: { kind: 'auto' }, modelsDir: undefined, cacheDir: join(homedir(), '.cache', 'cairn') },
    consolidate: {
      embeddedWorker: true,
      workerThread: true,
      workerNice: 10,
      batchSize: undefined,
      claimSize: undefined,
      leaseMs: undefined,
      heartbeatMs: undefined,
      deadAfterMs: undefined,
      maxAttempts: undefined,
      backoffMs: undefined,
      pollMs: undefined,
      workerId: undefined,
    },
    retain: { extractThreads: defaultExtractThreads() },
    log: { level: 'info' },
    telemetry: { tracesUrl: null, headers: {}, serviceName: 'cairn' },
  });
  for (const group of [llm.shared, ...Object.values(llm.operations)])
    assert.ok(
      Object.values(group).every((v) => v === undefined),
      'no LLM setting',
    );
  assert.equal(llm.groqApiKey, undefined);
});

test('values are read as written, blank means unset, CAIRN_PORT beats PORT', () => {
  const config = loadConfig({
    CAIRN_PORT: ' 9000 ',
    PORT: '7000',
    CAIRN_HOST: '0.0.0.0',
    CAIRN_API_KEY: 'k',
    CAIRN_DATA_DIR: '/var/cairn',
    CAIRN_WORKER: 'main',
    CAIRN_WORKER_NICE: '0',
    CAIRN_EXTRACT_THREADS: '2',
    CAIRN_LOG_LEVEL: 'warn',
    CAIRN_EMBEDDER: 'transformers',
    CAIRN_RERANKER: 'none',
    CAIRN_CACHE_DIR: '/tmp/c',
    CAIRN_CONSOLIDATION_POLL_MS: '50',
    CAIRN_WORKER_ID: ' w1 ',
  });
  assert.deepEqual(config.http, { host: '0.0.0.0', port: 9000, apiKey: 'k' });
  assert.equal(config.store.dataDir, '/var/cairn');
  assert.deepEqual([config.consolidate.embeddedWorker, config.consolidate.workerThread, config.consolidate.workerNice], [true, false, 0]);
  assert.deepEqual([config.consolidate.pollMs, config.consolidate.workerId], [50, 'w1']);
  assert.equal(config.retain.extractThreads, 2);
  assert.equal(config.log.level, 'warn');
  assert.deepEqual(config.embed, {
    embedder: { kind: 'transformers', model: 'Xenova/bge-small-en-v1.5' },
    reranker: { kind: 'none' },
    modelsDir: undefined,
    cacheDir: '/tmp/c',
  });
  assert.equal(loadConfig({ PORT: '7000' }).http.port, 7000);
  assert.equal(loadConfig({ CAIRN_PORT: '', CAIRN_WORKER: ' ', CAIRN_LOG_LEVEL: '' }).http.port, 8787);
  assert.equal(loadConfig({ CAIRN_RERANKER: 'transformers:org/model' }).embed.reranker.kind, 'model');
});

test('a bad value is refused naming the variable, its value and what is allowed', () => {
  refuses({ CAIRN_PORT: 'abc' }, "CAIRN_PORT 'abc' must be an integer from 0 to 65535");
  refuses({ CAIRN_PORT: '70000' }, "CAIRN_PORT '70000' must be an integer from 0 to 65535");
  refuses({ CAIRN_PORT: '80.5' }, "CAIRN_PORT '80.5' must be an integer from 0 to 65535");
  refuses({ PORT: 'http' }, "PORT 'http' must be an integer from 0 to 65535");
  refuses({ CAIRN_WORKER: 'yes' }, "CAIRN_WORKER 'yes' must be on, off or main");
  refuses({ CAIRN_WORKER_NICE: '25' }, "CAIRN_WORKER_NICE '25' must be an integer from 0 to 19");
  refuses({ CAIRN_LOG_LEVEL: 'loud' }, "CAIRN_LOG_LEVEL 'loud' must be one of debug, info, warn, error, silent");
  refuses({ CAIRN_STORE: 'sqlite' }, "CAIRN_STORE 'sqlite' must be one of embedded, server");
  refuses({ CAIRN_EXTRACT_THREADS: 'many' }, "CAIRN_EXTRACT_THREADS 'many' must be an integer >= 0");
  refuses({ CAIRN_CONSOLIDATION_BATCH_SIZE: '0' }, "CAIRN_CONSOLIDATION_BATCH_SIZE '0' must be an integer >= 1");
  refuses({ CAIRN_CONSOLIDATION_LEASE_MS: '50' }, "CAIRN_CONSOLIDATION_LEASE_MS '50' must be an integer >= 100");
  refuses(
    { CAIRN_EMBEDDER: 'glove:other-300d' },
    "CAIRN_EMBEDDER 'glove:other-300d' is not a known GloVe embedder (use 'glove', i.e. glove:wink-sg-100d:v1)",
  );
  refuses({ CAIRN_LLM_PROVIDER: 'claude' }, "CAIRN_LLM_PROVIDER 'claude' must be one of groq, openai, openai-compatible, offline");
  refuses(
    { CAIRN_THREADS_LLM_STRUCTURED_OUTPUT: 'xml' },
    "CAIRN_THREADS_LLM_STRUCTURED_OUTPUT 'xml' must be one of json_schema, json_object, text",
  );
  refuses({ CAIRN_REFLECT_LLM_TIMEOUT_MS: '0' }, "CAIRN_REFLECT_LLM_TIMEOUT_MS '0' must be an integer >= 1");
});

test('settings that contradict each other are refused naming both', () => {
  refuses(
    { CAIRN_WORKER_HEARTBEAT_MS: '10000' },
    'CAIRN_WORKER_DEAD_AFTER_MS (10000) must be longer than CAIRN_WORKER_HEARTBEAT_MS (10000)',
  );
  refuses({ CAIRN_WORKER_DEAD_AFTER_MS: '1000' }, 'CAIRN_WORKER_DEAD_AFTER_MS (1000) must be longer than CAIRN_WORKER_HEARTBEAT_MS (2000)');
  refuses(
    { CAIRN_STORE: 'server', QDRANT_URL: 'http://q:6333' },
    "CAIRN_STORE=server needs NEO4J_URI, NEO4J_PASSWORD (see the README's server-mode section)",
  );
  const config = loadConfig({ CAIRN_WORKER_HEARTBEAT_MS: '500', CAIRN_WORKER_DEAD_AFTER_MS: '3000' }).consolidate;
  assert.deepEqual([config.heartbeatMs, config.deadAfterMs], [500, 3000]);
});

test('every problem is named at once', () => {
  refuses(
    { CAIRN_PORT: '-1', CAIRN_WORKER: 'yes', CAIRN_LOG_LEVEL: 'loud' },
    [
      "CAIRN_PORT '-1' must be an integer from 0 to 65535",
      "CAIRN_WORKER 'yes' must be on, off or main",
      "CAIRN_LOG_LEVEL 'loud' must be one of debug, info, warn, error, silent",
    ].join('; '),
  );
});

test('each LLM variable lands in its operation (or the shared settings)', () => {
  const env: Record<string, string> = {};
  const value = (prefix: string, name: string): string =>
    name === 'PROVIDER'
      ? 'openai'
      : name === 'STRUCTURED_OUTPUT'
        ? 'text'
        : name.endsWith('_MS') || name === 'MAX_RETRIES' || name === 'CONCURRENCY'
          ? String(prefix.length)
          : `${prefix}${name}`;
  const prefixes = ['CAIRN_LLM_', ...LLM_OPERATIONS.map((op) => `CAIRN_${op.toUpperCase()}_LLM_`)];
  for (const prefix of prefixes) for (const name of LLM_NAMES) env[`${prefix}${name}`] = value(prefix, name);
  const llm = loadConfig({ ...env, GROQ_API_KEY: 'g', OPENAI_API_KEY: 'o' }).llm;
  const expected = (prefix: string) => ({
    provider: 'openai',
    model: `${prefix}MODEL`,
    baseUrl: `${prefix}BASE_URL`,
    apiKey: `${prefix}API_KEY`,
    structuredOutput: 'text',
    timeoutMs: prefix.length,
    maxRetries: prefix.length,
    concurrency: prefix.length,
  });
  assert.deepEqual(llm.shared, expected('CAIRN_LLM_'));
  for (const op of LLM_OPERATIONS) assert.deepEqual(llm.operations[op], expected(`CAIRN_${op.toUpperCase()}_LLM_`), op);
  assert.deepEqual([llm.groqApiKey, llm.openaiApiKey], ['g', 'o']);
  for (const variable of Object.keys(env)) assert.ok(CONFIG_VARIABLES.includes(variable), variable);
});

test('an OTLP endpoint turns tracing on; headers are parsed; a bad URL or header list is refused', () => {
  const on = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'a=1, b=x%3Dy' });
  assert.deepEqual(on.telemetry, { tracesUrl: 'http://collector:4318/v1/traces', headers: { a: '1', b: 'x=y' }, serviceName: 'cairn' });
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/traces' }).telemetry.tracesUrl, 'http://c/traces');
  const notUrl = 'must be an http or https URL without a query, such as http://127.0.0.1:4318';
  for (const bad of ['not a url', 'localhost:4318', 'ftp://x', 'http://x/?a=b'])
    refuses({ OTEL_EXPORTER_OTLP_ENDPOINT: bad }, `OTEL_EXPORTER_OTLP_ENDPOINT '${bad}' ${notUrl}`);
  const badHeaders = 'must be name=value pairs separated by commas (names without spaces, values without line breaks)';
  for (const bad of ['novalue', 'x-key=a%0Ab', 'bad%20key=1'])
    refuses({ OTEL_EXPORTER_OTLP_HEADERS: bad }, `OTEL_EXPORTER_OTLP_HEADERS '${bad}' ${badHeaders}`);
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
  assert.equal(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).telemetry.tracesUrl, null);
  assert.equal(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).telemetry.tracesUrl, null);
  refuses(
    { ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    "OTEL_EXPORTER_OTLP_PROTOCOL 'grpc' must be http/json: Cairn sends OTLP over HTTP as JSON only",
  );
});

test('the variables the configuration knows: each once, in the shapes the README documents', () => {
  assert.equal(new Set(CONFIG_VARIABLES).size, CONFIG_VARIABLES.length, 'no variable read by two sections');
  for (const name of CONFIG_VARIABLES)
    assert.match(name, /^(CAIRN_[A-Z0-9_]+|NEO4J_[A-Z]+|QDRANT_[A-Z_]+|GROQ_API_KEY|OPENAI_API_KEY|OTEL_[A-Z_]+|PORT)$/);
});

test('the offline extractor gets a thread per core up to three, none on one core', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 16].map((cores) => defaultExtractThreads(cores)),
    [0, 2, 3, 3, 3],
  );
  assert.equal(loadConfig({ CAIRN_EXTRACT_THREADS: '0' }).retain.extractThreads, 0);
});
