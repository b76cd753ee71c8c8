// Reflect end to end over real HTTP on a real engine (SQLite, GloVe, offline extraction and consolidation):
// the offline answerer quotes and cites existing memories; the LLM answerer runs its tool loop against a
// scripted chat-completions server through the real OpenAI client: invented ids are dropped and recorded,
// a structured answer is validated (and corrected), the step and time bounds hold, the ledger adds up.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../src/api/app.ts';
import { coreRoutes } from '../src/api/routes/index.ts';
import { reflectRoutes, type AnswererFor } from '../src/api/routes/reflect.ts';
import { createOpenAiCompatibleProvider } from '../src/llm/openai-compatible.ts';
import { LlmAnswerer, type LlmAnswererOptions } from '../src/reflect/llm-answerer.ts';
import { OfflineAnswerer } from '../src/reflect/offline-answerer.ts';
import { SqliteUsageLedger } from '../src/store/sqlite/usage.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';
import { listen, type Listening } from './support/http.ts';
import { startFakeLlmServer, reply, type FakeLlmServer, type ReceivedRequest, type ScriptedReply } from './support/fake-llm-server.ts';

type Step = { step: number; action: string; found?: string[]; ids?: string[]; why?: string; cited?: string[]; reason?: string };
type Reflected = {
  answer: unknown;
  basedOn: { observations: string[]; facts: string[] };
  trace: Step[];
  answerer: string;
  usage?: { inputTokens: number; outputTokens: number; cachedTokens: number };
};
type Failure = { error: { code: string; message: string } };

const items = [
  { content: 'I moved to Berlin to join a robotics startup.', speaker: 'Alice', timestamp: '2023-06-14T10:00:00Z' },
  { content: 'I live in Berlin now, in a flat in Kreuzberg.', speaker: 'Alice', timestamp: '2023-08-01T10:00:00Z' },
  { content: 'My sister Anna is a violinist in Vienna.', speaker: 'Alice', timestamp: '2023-09-02T10:00:00Z' },
  { content: 'I adopted a grey cat called Miso.', speaker: 'Alice', timestamp: '2024-01-20T10:00:00Z' },
];

const INVENTED = 'fct_01a2000000000000deadbeef00';

describe('reflect', () => {
  let te: TestEngine;
  let http: Listening;
  let llm: FakeLlmServer;
  let answererFor: AnswererFor = () => new OfflineAnswerer();

  const call = <T>(path: string, body?: unknown, method = 'POST'): Promise<{ status: number; body: T }> => http.call<T>(method, path, body);
  const reflect = (body: Record<string, unknown>) =>
    call<Reflected>('/v1/banks/alice/reflect', { queryTime: '2024-03-01T00:00:00Z', ...body });
  const useLlm = (options: LlmAnswererOptions = {}): void => {
    const provider = createOpenAiCompatibleProvider({ baseUrl: llm.openaiBaseUrl, model: 'local-model' });
    answererFor = () => new LlmAnswerer(provider, options);
  };
  const exists = async (id: string): Promise<boolean> => (await te.store.getFacts('alice', [id])).length === 1;

  before(async () => {
    te = await openEngine();
    llm = await startFakeLlmServer();
    const app = createApp(te.engine, { routes: [...coreRoutes(te.engine), reflectRoutes(te.engine, (bank) => answererFor(bank))] });
    http = await listen(app);
    await te.engine.createBank({
      id: 'alice',
      mission: 'Where Alice lives and works, and her family',
      config: { disposition: { skepticism: 5, empathy: 1 } },
    });
    await te.engine.retain('alice', { items });
    await te.worker.drain('alice');
  });
  after(async () => {
    await http.close();
    await llm.close();
    await te.close();
  });

  test('offline: the most relevant memory leads, every memory quoted and cited by an id that exists', async () => {
    answererFor = () => new OfflineAnswerer();
    const r = await reflect({ query: 'Where does Alice live?' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.answerer, 'offline');
    const answer = r.body.answer as string;
    const { observations, facts } = r.body.basedOn;
    assert.ok(observations.length + facts.length > 0, JSON.stringify(r.body.basedOn));
    for (const id of [...observations, ...facts]) {
      assert.ok(await exists(id), `${id} exists in the bank`);
      assert.ok(answer.includes(`[${id}]`), `${id} is cited in the answer`);
    }
    // The lead states where Alice lives; nothing unrelated to the question (the cat, the violin) is quoted.
    const lead = answer.split('\n')[1];
    assert.match(lead, /Alice lives in Berlin/, answer);
    assert.doesNotMatch(answer, /Miso|violinist/, answer);
    assert.deepEqual(
      r.body.trace.map((s) => s.action),
      ['search_observations', 'recall_facts'],
    );
  });

  test('offline: a question memory holds nothing about is answered as such, citing nothing', async () => {
    const r = await reflect({ query: 'What is the boiling point of mercury?' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.answer, 'Memory holds nothing relevant to "What is the boiling point of mercury?".');
    assert.deepEqual(r.body.basedOn, { observations: [], facts: [] });
  });

  test('offline: maxTokens shortens the quoted list from its least relevant end', async () => {
    const full = await reflect({ query: 'Where does Alice live?' });
    const short = await reflect({ query: 'Where does Alice live?', maxTokens: 40 });
    assert.equal(short.status, 200);
    const cited = (r: typeof full) => [...(r.body.answer as string).matchAll(/\[([a-z]+_[0-9a-z]+)\]/g)].map((m) => m[1]);
    assert.ok(cited(short).length < cited(full).length, `${cited(short).length} < ${cited(full).length}`);
    assert.deepEqual(cited(short), cited(full).slice(0, cited(short).length), 'a prefix of the full ranking');
  });

  test('offline: a response schema is honoured only when it can be filled honestly, else a clear 400', async () => {
    const honest = await reflect({
      query: 'Where does Alice live?',
      responseSchema: {
        type: 'object',
        properties: { answer: { type: 'string' }, citations: { type: 'array', items: { type: 'string' } } },
        required: ['answer', 'citations'],
      },
    });
    assert.equal(honest.status, 200, JSON.stringify(honest.body));
    const value = honest.body.answer as { answer: string; citations: string[] };
    assert.match(value.answer, /Berlin/);
    assert.deepEqual([...value.citations].sort(), [...honest.body.basedOn.observations, ...honest.body.basedOn.facts].sort());

    const needsModel = await call<Failure>('/v1/banks/alice/reflect', {
      query: 'Where does Alice live?',
      responseSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    });
    assert.equal(needsModel.status, 400);
    assert.match(needsModel.body.error.message, /needs an LLM/);

    const broken = await call<Failure>('/v1/banks/alice/reflect', { query: 'x', responseSchema: { type: 'strin' } });
    assert.equal(broken.status, 400);
    assert.match(broken.body.error.message, /responseSchema is not a JSON schema/);
  });

  test('bad requests, unknown banks, and the OpenAPI document', async () => {
    const doc = await call<{ paths: Record<string, unknown> }>('/openapi.json', undefined, 'GET');
    assert.ok(doc.body.paths['/v1/banks/{bank}/reflect']);
    assert.equal((await call<Failure>('/v1/banks/alice/reflect', { query: '' })).status, 400);
    assert.equal((await call<Failure>('/v1/banks/alice/reflect', { query: 'x', budget: 'huge' })).status, 400);
    assert.equal((await call<Failure>('/v1/banks/alice/reflect', { query: 'x', extra: 1 })).status, 400);
    assert.equal((await call<Failure>('/v1/banks/alice/reflect', { query: 'x', queryTime: 'soon' })).status, 400);
    assert.equal((await call<Failure>('/v1/banks/nobody/reflect', { query: 'x' })).status, 404);
  });

  /** The first memory id of a kind in the last tool result the model was shown. */
  const idFromLastResult = (request: ReceivedRequest, prefix: 'fct' | 'obs'): string => {
    const last = request.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    const id = new RegExp(`"id":"(${prefix}_[0-9a-f]+)"`).exec(last)?.[1];
    assert.ok(id, `a ${prefix} id in: ${last.slice(0, 200)}`);
    return id;
  };

  test('LLM: search_observations -> recall_facts -> done; the invented id is dropped and recorded; the ledger adds up', async () => {
    const ledger = new SqliteUsageLedger(te.store.db);
    useLlm({ ledger });
    const before = llm.requests.length;
    let realFact = '';
    let realObservation = '';
    llm.script(
      reply.json(
        { tool: 'search_observations', args: { query: 'where Alice lives' }, reason: 'conclusions first' },
        { prompt: 300, completion: 20 },
      ),
      (request): ScriptedReply => {
        realObservation = idFromLastResult(request, 'obs');
        return reply.json({ tool: 'recall_facts', args: { query: 'Alice Berlin flat', limit: 3 } }, { prompt: 500, completion: 25 });
      },
      (request): ScriptedReply => {
        realFact = idFromLastResult(request, 'fct');
        const answer = `Alice lives in Berlin, in Kreuzberg [${realFact}] [${INVENTED}].`;
        return reply.json({ done: { answer, cited: [realFact, INVENTED, realObservation] } }, { prompt: 700, completion: 40, cached: 100 });
      },
    );
    const r = await reflect({ query: 'Where does Alice live?' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.answerer, 'llm:openai-compatible:local-model');
    assert.equal(r.body.answer, `Alice lives in Berlin, in Kreuzberg [${realFact}].`);
    assert.deepEqual(r.body.basedOn, { observations: [realObservation], facts: [realFact] });
    assert.deepEqual(
      r.body.trace.map((s) => s.action),
      ['search_observations', 'recall_facts', 'done', 'dropped_citations'],
    );
    assert.deepEqual(r.body.trace[3].ids, [INVENTED]);
    assert.equal(r.body.trace[0].reason, 'conclusions first');
    assert.ok(r.body.trace[1].found?.includes(realFact));
    assert.equal(r.body.trace[1].found?.length, 3, 'the limit the model asked for');

    // The prompt carries the mission, the disposition, the question's time; each tool result went back to the model.
    const first = llm.requests[before].body;
    assert.match(first.messages[0].content, /Where Alice lives and works/);
    assert.match(first.messages[0].content, /Be skeptical/);
    assert.match(first.messages[0].content, /neutral and matter-of-fact/);
    assert.match(first.messages[0].content, /2024-03-01T00:00:00.000Z/);
    assert.equal(first.response_format?.json_schema?.name, 'reflect_step');
    assert.equal(llm.requests[before + 2].body.messages.filter((m) => m.role === 'assistant').length, 2);

    const expected = { inputTokens: 1500, outputTokens: 85, cachedTokens: 100 };
    assert.deepEqual(r.body.usage, expected);
    const report = await ledger.query({ bankId: 'alice' });
    assert.deepEqual(
      {
        calls: report.total.calls,
        inputTokens: report.total.inputTokens,
        outputTokens: report.total.outputTokens,
        cachedTokens: report.total.cachedTokens,
      },
      { calls: 3, ...expected },
    );
    assert.deepEqual(
      report.groups.map((g) => g.operation),
      ['reflect'],
    );
  });

  test("LLM: expand shows an observation's evidence and a fact's source text", async () => {
    useLlm();
    const [observation] = (await te.store.listFacts('alice', { limit: 10, offset: 0, kinds: ['observation'] })).facts;
    const evidence = await te.store.evidenceOf('alice', observation.id);
    let shown = '';
    let expanded = '';
    llm.script(
      reply.json({ tool: 'expand', args: { id: observation.id } }),
      (request): ScriptedReply => {
        expanded = idFromLastResult(request, 'fct');
        return reply.json({ tool: 'expand', args: { id: expanded, scope: 'document' } });
      },
      (request): ScriptedReply => {
        shown = request.body.messages.at(-1)?.content ?? '';
        return reply.json({ done: { answer: 'Alice lives in Berlin.', cited: [observation.id] } });
      },
    );
    const r = await reflect({ query: 'Where does Alice live?' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [expandObservation] = r.body.trace;
    assert.deepEqual(new Set(expandObservation.found?.slice(1)), new Set(evidence.map((e) => e.factId)));
    const [fact] = await te.store.getFacts('alice', [expanded]);
    const [chunk] = await te.store.getChunks('alice', [fact.source!.chunkId]);
    assert.ok(shown.includes(`"chunk":${JSON.stringify(chunk.text)}`), shown);
    assert.ok(shown.includes(`"document":${JSON.stringify(chunk.text)}`), 'a one-chunk document');
    assert.match(shown, /"speaker":"Alice"/);
    assert.deepEqual(r.body.basedOn, { observations: [observation.id], facts: [] });
  });

  test('LLM: a structured answer is validated against responseSchema, and corrected once when it is off', async () => {
    useLlm();
    const responseSchema = {
      type: 'object',
      properties: { city: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
      required: ['city', 'confidence'],
      additionalProperties: false,
    };
    const [fact] = (await te.store.listFacts('alice', { limit: 1, offset: 0, kinds: ['world'] })).facts;
    const before = llm.requests.length;
    llm.script(
      reply.json({ done: { answer: { city: 'Berlin', confidence: 3 }, cited: [fact.id] } }),
      reply.json({ done: { answer: { city: 'Berlin', confidence: 0.9 }, cited: [fact.id] } }),
    );
    const r = await reflect({ query: 'Which city does Alice live in?', responseSchema });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.answer, { city: 'Berlin', confidence: 0.9 });
    assert.deepEqual(r.body.basedOn.facts, [fact.id]);
    assert.match(llm.requests[before + 1].body.messages.at(-1)?.content ?? '', /confidence/);
    assert.match(JSON.stringify(llm.requests[before].body.response_format), /"city"/);
    assert.match(llm.requests[before].body.messages[0].content, /must be a JSON value matching this JSON schema/);

    // Off twice: the request fails visibly.
    llm.script(reply.json({ done: { answer: { city: 'Berlin' }, cited: [] } }), reply.text('Berlin, I think.'));
    const failed = await call<Failure>('/v1/banks/alice/reflect', { query: 'Which city?', responseSchema });
    assert.equal(failed.status, 503);
    assert.match(failed.body.error.message, /no usable reflect output/);
  });

  test('LLM: the step bound holds; the last step asks for the answer and the memories found are quoted', async () => {
    useLlm({ maxSteps: 3 });
    const before = llm.requests.length;
    llm.script(...[1, 2, 3].map(() => reply.json({ tool: 'recall_facts', args: { query: 'Alice' } })));
    const r = await reflect({ query: 'Tell me about Alice' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(llm.requests.length - before, 3, 'exactly maxSteps model calls');
    assert.equal(llm.pending, 0);
    assert.match(llm.requests[before + 2].body.messages.at(-1)?.content ?? '', /This is your last step/);
    assert.deepEqual(
      r.body.trace.map((s) => s.action),
      ['recall_facts', 'recall_facts', 'stopped'],
    );
    assert.equal(r.body.trace[2].why, 'steps');
    assert.match(r.body.answer as string, /did not finish/);
    assert.ok(r.body.basedOn.facts.length > 0);
    for (const id of r.body.basedOn.facts) assert.ok((r.body.answer as string).includes(id));
  });

  test('LLM: the time bound aborts a hanging call and answers with what was found', async () => {
    useLlm({ timeLimitMs: 400 });
    llm.script(reply.json({ tool: 'search_observations', args: { query: 'Alice' } }), reply.hang());
    const started = Date.now();
    const r = await reflect({ query: 'Where does Alice live?' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(Date.now() - started < 3000, 'did not wait for the hang');
    assert.deepEqual(
      r.body.trace.map((s) => s.action),
      ['search_observations', 'stopped'],
    );
    assert.equal(r.body.trace[1].why, 'time');
    assert.ok(r.body.basedOn.observations.length > 0);
  });
});
