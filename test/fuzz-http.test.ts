// Property-based fuzzing of the whole HTTP API on the real embedded store: requests for every operation of the
// app's own /openapi.json (paths, methods, parameters, JSON bodies), valid and mutated with hostile values, sent
// in-process through app.request() and, fewer, over real HTTP. The property: no 5xx, no hang, no crash, every
// error a JSON {error: {code, message}}, and a bank no request named (the control bank) unchanged afterwards.
// Seeded: the seed is printed; CAIRN_FUZZ_SEED reruns a run, CAIRN_FUZZ_RUNS changes its length.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from '../src/api/app.ts';
import { compose, type Composed } from '../src/compose.ts';
import { loadConfig } from '../src/config/index.ts';
import { TEST_CACHE_DIR } from './support/embed.ts';
import { encodeSegment, hostileString, SchemaArbitraries, toJson, type FuzzRequest, type Known, type OpenApiDoc } from './support/fuzz.ts';
import { listen, type Listening } from './support/http.ts';

const SEED = Number(process.env.CAIRN_FUZZ_SEED ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env.CAIRN_FUZZ_RUNS ?? 5000);
const HTTP_RUNS = Math.max(50, Math.round(RUNS / 20));
const BATCH = 100;
/** Longest a single request may take before it counts as a hang. */
const REQUEST_TIMEOUT_MS = 60_000;

const CONTROL = 'control';
const FUZZ_BANKS = ['fz-a', 'fz-b'];

type Send = (
  method: string,
  path: string,
  init: { headers: Record<string, string>; body?: string },
  signal: AbortSignal,
) => Response | Promise<Response>;

interface Finding {
  kind: string;
  request: string;
  status?: number;
  detail: string;
}

describe('HTTP fuzz', () => {
  let dir: string;
  let composed: Composed;
  let app: OpenAPIHono;
  let doc: OpenApiDoc;
  const findings: Finding[] = [];
  const errorLogs: string[] = [];
  const crashes: string[] = [];
  const ids = new Set<string>();
  const threads = ['t1', 't2'];
  /** A fuzz bank with a document and two threads, so requests aimed at it reach past the 404s. */
  const prepareBank = async (bank: string): Promise<void> => {
    await call('POST', '/v1/banks', { id: bank, mission: `bank ${bank}` });
    harvest(
      (
        await call('POST', `/v1/banks/${bank}/memories`, {
          items: [{ content: 'Alice moved to Berlin last June.', timestamp: '2024-06-01T00:00:00Z' }],
        })
      ).body,
    );
    for (const t of ['t1', 't2'])
      await call('POST', `/v1/banks/${bank}/threads/${t}/messages`, { role: 'user', content: `Hello from ${t}, I live in Lisbon.` });
  };
  let sent = 0;
  let unsendable = 0;
  const statuses = new Map<number, number>();

  const onCrash = (e: unknown): void => {
    crashes.push(e instanceof Error ? (e.stack ?? e.message) : String(e));
  };
  const realWrite = process.stderr.write.bind(process.stderr);

  before(async () => {
    console.log(`fuzz seed ${SEED} (rerun with CAIRN_FUZZ_SEED=${SEED}), ${RUNS} in-process requests, ${HTTP_RUNS} over HTTP`);
    dir = mkdtempSync(join(tmpdir(), 'cairn-fuzz-'));
    const config = loadConfig({ CAIRN_CACHE_DIR: TEST_CACHE_DIR, CAIRN_WORKER: 'off', CAIRN_DATA_DIR: dir, CAIRN_LOG_LEVEL: 'warn' });
    composed = await compose(config);
    app = createApp(composed.engine, { routes: composed.routes });
    doc = (await (await app.request('/openapi.json')).json()) as OpenApiDoc;
    process.on('unhandledRejection', onCrash);
    process.on('uncaughtException', onCrash);
    // Error-level log lines, and warnings of failed work (a consolidation that failed, dead-lettering facts), are
    // findings too: background work has no status code to show them.
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      if (/^\S+ (error |warn .*fail)/m.test(text)) errorLogs.push(text.slice(0, 600));
      return (realWrite as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
  });

  after(async () => {
    process.stderr.write = realWrite;
    process.off('unhandledRejection', onCrash);
    process.off('uncaughtException', onCrash);
    await composed?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const res = await app.request(path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
  };

  /** Everything readable about the control bank, to compare before and after the fuzzing. */
  const snapshot = async (): Promise<unknown> => {
    const paths = [
      `/v1/banks/${CONTROL}`,
      `/v1/banks/${CONTROL}/facts?limit=1000&includeSuperseded=true`,
      `/v1/banks/${CONTROL}/documents?limit=1000`,
      `/v1/banks/${CONTROL}/entities?limit=1000`,
      `/v1/banks/${CONTROL}/threads`,
      `/v1/banks/${CONTROL}/threads/ct/messages`,
      `/v1/banks/${CONTROL}/threads/ct/working-memory`,
      `/v1/banks/${CONTROL}/thread-settings`,
      `/v1/banks/${CONTROL}/tombstones`,
      `/v1/banks/${CONTROL}/consolidation/dead-letters`,
    ];
    const out: Record<string, unknown> = {};
    for (const p of paths) out[p] = await call('GET', p);
    out.recall = await call('POST', `/v1/banks/${CONTROL}/recall`, { query: 'Where did Dana move?', queryTime: '2024-07-01T00:00:00Z' });
    return out;
  };

  const resolve = (value: Known | string): string => {
    if (typeof value === 'string') return value === CONTROL ? `${CONTROL}-not` : value;
    if (value.known === 'bank') return FUZZ_BANKS[value.pick % FUZZ_BANKS.length];
    if (value.known === 'thread') return threads[value.pick % threads.length];
    const pool = [...ids];
    return pool.length ? pool[value.pick % pool.length] : 'fct_missing';
  };

  /** Ids the server handed out (facts, documents, observations, operations, entities), to aim later requests at. */
  const harvest = (value: unknown, key = ''): void => {
    if (ids.size > 500) return;
    if (typeof value === 'string') {
      if (/^(id|factIds|operationId|documentId|observationId|targetId|entityId)$/.test(key) && value.length < 100) ids.add(value);
    } else if (Array.isArray(value)) for (const v of value.slice(0, 20)) harvest(v, key);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value).slice(0, 40)) harvest(v, k);
  };

  const describeRequest = (method: string, path: string, body: string | undefined, headers: Record<string, string>): string =>
    `${method} ${path.slice(0, 300)} ${JSON.stringify(headers)} body=${body === undefined ? '-' : JSON.stringify(body.slice(0, 300))}${body && body.length > 300 ? `...(${body.length} chars)` : ''}`;

  const run = async (r: FuzzRequest, send: Send): Promise<void> => {
    const values = Object.fromEntries(Object.entries(r.params).map(([k, v]) => [k, resolve(v)]));
    const path =
      r.template.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(values[name] ?? 'x')) +
      (r.query.length ? `?${r.query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join('&')}` : '');
    const canHaveBody = !['GET', 'HEAD'].includes(r.method);
    const body = !canHaveBody || r.body === undefined ? undefined : 'raw' in r.body ? r.body.raw : toJson(r.body.json);
    const what = describeRequest(r.method, path, body, r.headers);
    const controller = new AbortController();
    let res: Response;
    let timer: NodeJS.Timeout | undefined;
    try {
      res = await Promise.race([
        Promise.resolve(send(r.method, path, { headers: r.headers, body }, controller.signal)),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), REQUEST_TIMEOUT_MS))),
      ]);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (message === 'timeout') findings.push({ kind: 'hang', request: what, detail: `no answer in ${REQUEST_TIMEOUT_MS} ms` });
      else if (e instanceof TypeError)
        unsendable++; // the client refused to build the request (e.g. a URL it rejects)
      else findings.push({ kind: 'throw', request: what, detail: message });
      return;
    } finally {
      clearTimeout(timer);
    }
    sent++;
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream')) {
      controller.abort();
      await res.body?.cancel().catch(() => undefined);
      return;
    }
    const text = await res.text();
    if (res.status >= 500) {
      findings.push({ kind: '5xx', request: what, status: res.status, detail: text.slice(0, 300) });
      return;
    }
    // 431: Node's HTTP parser refuses a 1 MB URL before the app sees it (over real HTTP only), with no body.
    if (r.method === 'HEAD' || res.status === 204 || (res.status === 431 && text === '')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      findings.push({ kind: 'not JSON', request: what, status: res.status, detail: text.slice(0, 200) });
      return;
    }
    if (res.status >= 400) {
      const error = (parsed as { error?: { code?: unknown; message?: unknown } }).error;
      if (typeof error?.code !== 'string' || typeof error.message !== 'string')
        findings.push({ kind: 'error body', request: what, status: res.status, detail: text.slice(0, 200) });
      return;
    }
    harvest(parsed);
    if (r.method === 'DELETE' && r.template === '/v1/banks/{bank}' && FUZZ_BANKS.includes(values.bank)) await prepareBank(values.bank);
  };

  /** Requests for every operation of the document, plus unknown paths. */
  const requests = (): fc.Arbitrary<FuzzRequest> => {
    const schemas = new SchemaArbitraries(doc);
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => schemas.request(path, method, op)),
    );
    const unknown = fc.record({
      method: fc.constantFrom('GET', 'POST', 'DELETE'),
      template: fc.constantFrom('/v1/{x}', '/v1/banks/{bank}/{x}', '/{x}', '/v1/banks/{bank}/threads/{thread}/{x}'),
      params: fc.record({
        x: hostileString,
        bank: fc.constant<Known>({ known: 'bank', pick: 0 }),
        thread: fc.constant<Known>({ known: 'thread', pick: 0 }),
      }),
      query: fc.constant<Array<[string, string]>>([]),
      headers: fc.constant({ 'content-type': 'application/json' }),
      body: fc.constant(undefined),
    });
    return fc.oneof(...operations, unknown);
  };

  /** The systematic part: every operation's sweep (see SchemaArbitraries.sweep). */
  const sweep = (seed: number): FuzzRequest[] => {
    const schemas = new SchemaArbitraries(doc);
    return Object.entries(doc.paths).flatMap(([path, methods], i) =>
      Object.entries(methods).flatMap(([method, op], j) => schemas.sweep(path, method, op, seed + i * 100 + j)),
    );
  };

  const fuzz = async (count: number, seed: number, send: Send): Promise<void> => {
    const arb = requests();
    for (let done = 0; done < count; done += BATCH) {
      const batch = fc.sample(arb, { seed: seed + done, numRuns: Math.min(BATCH, count - done) });
      for (const r of batch) await run(r, send);
    }
  };

  // About a minute on a 2-core machine with a load average of 11 (the runner allows a file three).
  test(`${RUNS} in-process and ${HTTP_RUNS} HTTP requests from the OpenAPI document: no 5xx, no hang, no crash, the control bank untouched`, async () => {
    const started = Date.now();
    assert.equal((await call('POST', '/v1/banks', { id: CONTROL, mission: 'the control bank' })).status, 201);
    for (const bank of FUZZ_BANKS) await prepareBank(bank);
    const seeded = await call('POST', `/v1/banks/${CONTROL}/memories`, {
      items: [
        { content: 'Dana moved to Porto in May to open a bakery.', speaker: 'Dana', timestamp: '2024-05-20T10:00:00Z', tags: ['home'] },
        { content: 'Dana adopted a dog called Pico.', speaker: 'Dana', timestamp: '2024-06-02T10:00:00Z', metadata: { turn: '2' } },
      ],
    });
    assert.equal(seeded.status, 200);
    assert.equal(
      (
        await call('POST', `/v1/banks/${CONTROL}/threads/ct/messages`, [
          { role: 'user', content: 'I run a bakery in Porto.' },
          { role: 'assistant', content: 'Nice!' },
        ])
      ).status,
      200,
    );
    assert.equal(
      (await call('PUT', `/v1/banks/${CONTROL}/threads/ct/working-memory`, { content: '# Dana\n- bakery in Porto' })).status,
      200,
    );
    const before = await snapshot();

    const inProcess: Send = (method, path, init, signal) => app.request(path, { method, ...init, signal });
    const systematic = sweep(SEED);
    for (const r of systematic) await run(r, inProcess);
    const sweepSeconds = (Date.now() - started) / 1000;
    await fuzz(Math.max(RUNS - systematic.length, 0), SEED, inProcess);
    const inProcessSeconds = (Date.now() - started) / 1000;
    const http: Listening = await listen(app);
    try {
      await fuzz(HTTP_RUNS, SEED + 1_000_000, (method, path, init, signal) => fetch(http.url + path, { method, ...init, signal }));
    } finally {
      await http.close();
    }
    await composed.engine.operations.idle();

    const afterwards = await snapshot();
    const counts = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    console.log(
      `fuzz: ${sent} answered (${unsendable} the client would not send) in ${((Date.now() - started) / 1000).toFixed(0)} s (in-process: ${systematic.length} swept in ${sweepSeconds.toFixed(0)} s, then random until ${inProcessSeconds.toFixed(0)} s); statuses ${counts}`,
    );
    const distinct = new Map<string, Finding>();
    for (const f of findings)
      distinct.set(`${f.kind} ${f.request.split(' ')[0]} ${f.request.split(' ')[1]?.replace(/[?].*/, '')} ${f.detail.slice(0, 80)}`, f);
    const report = [...distinct.values()].map((f) => `${f.kind} ${f.status ?? ''}: ${f.request}\n    -> ${f.detail}`).join('\n');
    assert.equal(findings.length, 0, `seed ${SEED}: ${findings.length} findings, ${distinct.size} distinct:\n${report}`);
    assert.deepEqual(crashes, [], `seed ${SEED}: unhandled rejections or exceptions`);
    assert.deepEqual(errorLogs, [], `seed ${SEED}: log lines of errors or failed work`);
    assert.ok(sent >= RUNS * 0.95, `only ${sent} of ${RUNS + HTTP_RUNS} requests were sent`);
    assert.deepEqual(afterwards, before, `seed ${SEED}: the control bank changed`);
    assert.equal((await call('GET', '/health')).status, 200);
  });
});
