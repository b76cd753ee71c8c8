// The LLM observer, reflector and working-memory updater over the real OpenAI-compatible adapter, against a
// local chat server: the bank's custom instructions reach the prompts, replies become observations and
// reflections of growing generations, and a failing model falls back to the offline observer in a synchronous
// step (failed event, then an offline end event) without losing the turn.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryStatusReport } from '../src/threads/status.ts';
import {
  readEvents,
  startFakeLlm,
  startThreadServer,
  type ChatRequestBody,
  type FakeLlm,
  type FakeReply,
  type ThreadTestServer,
} from './support/threads.ts';
import type { MemoryItem } from '../src/threads/types.ts';

const schemaOf = (b: ChatRequestBody): string => b.response_format?.json_schema?.name ?? '';
const system = (b: ChatRequestBody): string => b.messages.find((m) => m.role === 'system')?.content ?? '';

describe('thread memory with an LLM', () => {
  let llm: FakeLlm;
  let s: ThreadTestServer;
  let failObservations = false;
  let observerDelayMs = 0;
  before(async () => {
    llm = await startFakeLlm(async (body): Promise<FakeReply> => {
      const kind = schemaOf(body);
      const prompt = body.messages.map((m) => m.content).join('\n');
      if (kind === 'observation') {
        if (failObservations) return { status: 500, error: 'model overloaded' };
        if (observerDelayMs) await new Promise((r) => setTimeout(r, observerDelayMs));
        const lines = (prompt.match(/^\[\d{4}-[^\]]+\] /gm) ?? []).length;
        return JSON.stringify({
          observations: `LLM observation of ${lines} messages about the Kyoto trip.`,
          currentTask: 'Plan the Kyoto trip',
          suggestedResponse: 'Ask for travel dates',
        });
      }
      if (kind === 'reflection')
        return JSON.stringify({ reflection: `LLM reflection of ${(prompt.match(/^#\d+ /gm) ?? []).length} items.` });
      if (kind === 'working_memory') {
        const said = body.messages[body.messages.length - 1].content.split('New messages:')[1] ?? '';
        if (/moved to Porto/.test(said))
          return JSON.stringify({ document: '# Working memory\n\n## Profile\n- Lives in Porto (previously Leeds)\n' });
        if (/live in Leeds/.test(said)) return JSON.stringify({ document: '# Working memory\n\n## Profile\n- Lives in Leeds\n' });
        return JSON.stringify({ document: '# Working memory\n\n## Goals\n- Visit Kyoto in April\n' });
      }
      return { status: 400, error: `unexpected schema ${kind}` };
    });
    s = await startThreadServer({ llm: llm.provider });
    assert.equal((await s.call('POST', '/v1/banks', { id: 'llm' })).status, 201);
    const settings = {
      messageTokens: 60,
      bufferTokens: false,
      observationTokens: 30,
      reflectionConsolidationThreshold: 2,
      observerInstructions: 'Focus on travel plans and budgets.',
      reflectorInstructions: 'Always keep the dates.',
    };
    assert.equal((await s.call('PATCH', '/v1/banks/llm/thread-settings', settings)).status, 200);
  });
  after(async () => {
    await s.close();
    await llm.close();
  });

  const turn = (i: number) => ({
    role: 'user',
    content: `Turn ${i}: for the Kyoto trip in April we should compare ryokan number ${i} with the hotel near Gion station.`,
  });

  test('custom instructions reach the prompts; replies become observations, reflections and working memory', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await s.call<{ warnings: string[] }>('POST', '/v1/banks/llm/threads/k/messages', turn(i));
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.warnings, []);
      await s.memory.idle();
    }
    const observerCalls = llm.requests.filter((b) => schemaOf(b) === 'observation');
    const reflectorCalls = llm.requests.filter((b) => schemaOf(b) === 'reflection');
    assert.ok(observerCalls.length >= 3, `${observerCalls.length} observer calls`);
    assert.ok(reflectorCalls.length >= 3, `${reflectorCalls.length} reflector calls`);
    assert.ok(
      observerCalls.every((b) => system(b).includes('Focus on travel plans and budgets.')),
      'observer instructions in the system prompt',
    );
    assert.ok(
      reflectorCalls.every((b) => system(b).includes('Always keep the dates.')),
      'reflector instructions in the system prompt',
    );
    assert.ok(
      observerCalls.some((b) => b.messages.some((m) => m.content.includes('ryokan number 0'))),
      'the messages reach the observer',
    );

    const items = (await s.call<{ items: MemoryItem[] }>('GET', '/v1/banks/llm/threads/k/observations?status=active,archived')).body.items;
    const observations = items.filter((i) => i.kind === 'observation');
    assert.ok(
      observations.every((o) => /^LLM observation of \d+ messages/.test(o.text)),
      observations.map((o) => o.text).join(' | '),
    );
    assert.ok(
      observations.every((o) => /^LLM observation of (\d+)/.exec(o.text)?.[1] === String(o.messageCount)),
      'each observation saw exactly its messages',
    );
    const reflections = items.filter((i) => i.kind === 'reflection');
    assert.ok(
      reflections.some((r) => r.generation === 2 && r.text === 'LLM reflection of 2 items.'),
      'a second generation condensed two reflections',
    );
    const status = (await s.call<MemoryStatusReport>('GET', '/v1/banks/llm/threads/k/memory')).body;
    assert.equal(status.observer, 'llm:openai-compatible/fake-model');
    assert.ok(status.generationCount >= 2, `generation count ${status.generationCount}`);
    const ctx = (await s.call<{ prefix: string; currentTask: string }>('GET', '/v1/banks/llm/threads/k/context')).body;
    assert.equal(ctx.currentTask, 'Plan the Kyoto trip');
    assert.match(ctx.prefix, /## Working memory\n# Working memory\n\n## Goals\n- Visit Kyoto in April/);
  });

  test("the working-memory model is told to replace an attribute's old value, and its document is stored", async () => {
    assert.equal((await s.call('POST', '/v1/banks', { id: 'llm-profile' })).status, 201);
    assert.equal(
      (await s.call('PATCH', '/v1/banks/llm-profile/thread-settings', { messageTokens: 4000, bufferTokens: false })).status,
      200,
    );
    for (const content of ['I live in Leeds.', 'I moved to Porto.']) {
      assert.equal((await s.call('POST', '/v1/banks/llm-profile/threads/p/messages', { role: 'user', content })).status, 200);
      await s.memory.idle();
    }
    const calls = llm.requests.filter(
      (b) => schemaOf(b) === 'working_memory' && /I live in Leeds|I moved to Porto/.test(b.messages[b.messages.length - 1].content),
    );
    assert.equal(calls.length, 2);
    assert.match(system(calls[1]), /follows the latest facts.*where the user lives.*replace the old\s+statement instead of keeping both/s);
    const asked = calls[1].messages[calls[1].messages.length - 1].content;
    assert.match(asked, /Current document:\n# Working memory\n\n## Profile\n- Lives in Leeds\n/, 'the model sees the current profile');
    assert.match(asked, /New messages:\n.*I moved to Porto\./);
    const doc = (await s.call<{ content: string }>('GET', '/v1/banks/llm-profile/threads/p/working-memory')).body.content;
    assert.equal(doc, '# Working memory\n\n## Profile\n- Lives in Porto (previously Leeds)');
  });

  test('a failing model falls back to the offline observer in a synchronous observation', async () => {
    const stream = readEvents(`${s.url}/v1/banks/llm/threads/k/events`);
    await stream.ready;
    await new Promise((r) => setTimeout(r, 50));
    failObservations = true;
    try {
      for (let i = 100; i < 104; i++) {
        const r = await s.call<{ warnings: string[] }>('POST', '/v1/banks/llm/threads/k/messages', turn(i));
        assert.equal(r.status, 200);
        assert.deepEqual(r.body.warnings, [], 'the fallback kept the step working');
        await s.memory.idle();
      }
    } finally {
      failObservations = false;
    }
    await new Promise((r) => setTimeout(r, 100));
    stream.stop();
    const failed = stream.events.filter((e) => e.type === 'observation.failed');
    assert.ok(failed.length >= 1, stream.events.map((e) => e.type).join(','));
    assert.match(failed[0].error ?? '', /overloaded|500/);
    const fallbackEnd = stream.events.find((e) => e.type === 'observation.end' && e.by === 'offline');
    assert.ok(fallbackEnd, 'an offline observation ended the cycle');
    const items = (await s.call<{ items: MemoryItem[] }>('GET', '/v1/banks/llm/threads/k/observations?status=active,archived')).body.items;
    const offline = items.find((i) => i.id === fallbackEnd.itemIds[0]);
    assert.ok(offline && /ryokan number 10[0-3]/.test(offline.text), `offline observation: ${offline?.text}`);

    // observer 'offline' on a thread keeps it offline even with an LLM configured.
    assert.equal((await s.call('PUT', '/v1/banks/llm/threads/off', { settings: { observer: 'offline' } })).status, 200);
    await s.call('POST', '/v1/banks/llm/threads/off/messages', turn(1));
    assert.equal((await s.call<MemoryStatusReport>('GET', '/v1/banks/llm/threads/off/memory')).body.observer, 'offline');
  });

  test('past blockAfter an append waits for the background chunk, activates it and observes the rest synchronously', async () => {
    assert.equal((await s.call('POST', '/v1/banks', { id: 'slow' })).status, 201);
    const settings = {
      messageTokens: 200,
      bufferTokens: 60,
      bufferActivation: 0.8,
      blockAfter: 1.2,
      observationTokens: 0,
      workingMemory: { enabled: false },
    };
    assert.equal((await s.call('PATCH', '/v1/banks/slow/thread-settings', settings)).status, 200);
    await s.call('POST', '/v1/banks/slow/threads/b/messages', turn(0));
    const stream = readEvents(`${s.url}/v1/banks/slow/threads/b/events`);
    await stream.ready;
    await new Promise((r) => setTimeout(r, 50));
    observerDelayMs = 400;
    let blocked: { ms: number; status: MemoryStatusReport } | null = null;
    try {
      // Two turns start a background chunk (slow to come back); then a burst far past blockAfter arrives at once.
      for (let i = 1; i < 3; i++) assert.equal((await s.call('POST', '/v1/banks/slow/threads/b/messages', turn(i))).status, 200);
      const started = Date.now();
      const burst = await s.call(
        'POST',
        '/v1/banks/slow/threads/b/messages',
        Array.from({ length: 10 }, (_, i) => turn(10 + i)),
      );
      assert.equal(burst.status, 200);
      blocked = { ms: Date.now() - started, status: (await s.call<MemoryStatusReport>('GET', '/v1/banks/slow/threads/b/memory')).body };
      await s.memory.idle();
    } finally {
      observerDelayMs = 0;
    }
    stream.stop();
    assert.ok(blocked && blocked.ms >= 600, `the burst waited for the chunk and a synchronous observation (${blocked?.ms} ms)`);
    const w = blocked.status.windows.active.messages;
    assert.ok(w.tokens <= w.blockAfter, `after the blocking append ${w.tokens} unobserved tokens remain (blockAfter ${w.blockAfter})`);
    const types = stream.events.map((e) => `${e.type}${e.operation ? `:${e.operation}` : ''}`);
    const sync = stream.events.find((e) => e.type === 'observation.end');
    assert.ok(sync && sync.by === 'llm:openai-compatible/fake-model' && (sync.durationMs ?? 0) >= 300, types.join(','));
    const activation = stream.events.findIndex((e) => e.type === 'activation');
    assert.ok(
      activation >= 0 && activation < stream.events.indexOf(sync),
      `the buffered chunk activates before the synchronous observation: ${types.join(',')}`,
    );
  });
});
