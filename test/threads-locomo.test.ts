// Replays a LoCoMo conversation into a thread over real HTTP, message by message, with small thresholds, and
// checks after every turn: the context never exceeds its budget (recounted here with the real tokenizer), the
// prefix is byte-identical whenever the active memory did not change, reflections grow generations as
// configured, and the SSE events account for everything the status and the stored items show.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../src/text/tokens.ts';
import { DEFAULT_LOCOMO_PATH, loadLocomo, locomoAvailable, type LocomoConversation } from '../benchmarks/locomo-threads.ts';
import type { MemoryStatusReport } from '../src/threads/status.ts';
import { readEvents, startThreadServer, type ThreadTestServer } from './support/threads.ts';
import type { MemoryItem } from '../src/threads/types.ts';

const MAX_TOKENS = 1000;
const THRESHOLD = 2;
const SETTINGS = {
  messageTokens: 300,
  bufferTokens: 0.25,
  bufferActivation: 0.8,
  blockAfter: 1.3,
  observationTokens: 350,
  reflectionBufferActivation: 0.5,
  reflectionConsolidationThreshold: THRESHOLD,
  memoryTokenBudget: 800,
  messageTokenBudget: 600,
  maxObservationsInContext: 8,
  maxReflectionsInContext: 4,
  workingMemory: { maxTokens: 120 },
};

type Context = {
  prefix: string;
  prefixHash: string;
  prefixTokens: number;
  totalTokens: number;
  messages: Array<{ content: string; toolCalls: unknown }>;
};

const LOCOMO = process.env.CAIRN_LOCOMO_PATH ?? DEFAULT_LOCOMO_PATH;
const available = locomoAvailable(LOCOMO);
if (!available) console.log(`# SKIP threads-locomo: ${LOCOMO} not found; the LoCoMo replay test did not run`);

describe('thread memory replaying a LoCoMo conversation', { skip: !available && 'LoCoMo dataset not present' }, () => {
  let s: ThreadTestServer;
  let conversation: LocomoConversation;
  before(async () => {
    s = await startThreadServer();
    const all = loadLocomo(LOCOMO);
    conversation = all.find((c) => c.id === 'conv-30') ?? all[0];
    assert.equal((await s.call('POST', '/v1/banks', { id: 'loco' })).status, 201);
    assert.equal((await s.call('PATCH', '/v1/banks/loco/thread-settings', SETTINGS)).status, 200);
  });
  after(async () => s.close());

  test('budget, prefix stability, generations and events over the whole conversation', async () => {
    // The thread must exist before the stream can subscribe: send the first message, then replay from event 0.
    const first = await s.call('POST', '/v1/banks/loco/threads/t/messages', conversation.turns[0].message);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const stream = readEvents(`${s.url}/v1/banks/loco/threads/t/events?since=0`);
    await stream.ready;

    let previous: { memory: string; prefix: string } | null = null;
    let stableTurns = 0;
    let changedTurns = 0;
    let maxSeen = 0;
    let nearBudget = 0;
    for (const [i, turn] of conversation.turns.entries()) {
      // Every turn goes through the same use case; every 20th also through HTTP, checked against it.
      const overHttp = i % 20 === 0;
      if (i > 0) {
        if (overHttp) {
          const r = await s.call('POST', '/v1/banks/loco/threads/t/messages', turn.message);
          assert.equal(r.status, 200, JSON.stringify(r.body));
        } else await s.memory.append('loco', 't', { messages: [turn.message] });
      }
      await s.memory.idle();
      const ctx: Context = await s.memory.context('loco', 't', { maxTokens: MAX_TOKENS });
      if (overHttp) {
        const http = (await s.call<Context>('GET', `/v1/banks/loco/threads/t/context?maxTokens=${MAX_TOKENS}`)).body;
        assert.equal(http.prefix, ctx.prefix);
        assert.equal(http.prefixHash, ctx.prefixHash);
        assert.equal(http.totalTokens, ctx.totalTokens);
      }
      const recount = countTokens(ctx.prefix) + ctx.messages.reduce((n, m) => n + countTokens(m.content) + 4, 0);
      assert.ok(recount <= MAX_TOKENS, `turn ${i}: context holds ${recount} tokens, budget ${MAX_TOKENS}`);
      assert.equal(ctx.totalTokens, recount, `turn ${i}: reported and recounted totals differ`);
      assert.ok(ctx.prefixTokens <= SETTINGS.memoryTokenBudget, `turn ${i}: prefix ${ctx.prefixTokens} over memoryTokenBudget`);
      const tail = ctx.messages.reduce((n, m) => n + countTokens(m.content) + 4, 0);
      assert.ok(tail <= SETTINGS.messageTokenBudget, `turn ${i}: raw tail ${tail} over messageTokenBudget`);
      if (recount > MAX_TOKENS - 60) nearBudget++;
      maxSeen = Math.max(maxSeen, recount);

      const active = await s.memory.items('loco', 't', ['active']);
      const wm = (await s.memory.workingMemory('loco', 't')).content;
      const memory = JSON.stringify([active.map((a) => a.id), wm]);
      if (previous && previous.memory === memory) {
        assert.equal(ctx.prefix, previous.prefix, `turn ${i}: memory unchanged but the prefix changed`);
        stableTurns++;
      } else if (previous) changedTurns++;
      previous = { memory, prefix: ctx.prefix };
    }
    assert.ok(stableTurns > conversation.turns.length / 3, `only ${stableTurns} turns had unchanged memory; the check proved little`);
    assert.ok(changedTurns > 10, `memory changed only ${changedTurns} times`);
    assert.ok(
      maxSeen > MAX_TOKENS * 0.8 && nearBudget > 0,
      `the context never came near its budget (max ${maxSeen}); thresholds too large to test it`,
    );

    // Generations: every reflection above generation 1 condenses exactly THRESHOLD reflections of the one below;
    // generation-1 reflections condense observations; what is still active stays below the threshold per generation.
    const all = (await s.call<{ items: MemoryItem[] }>('GET', '/v1/banks/loco/threads/t/observations?status=active,archived')).body.items;
    const byId = new Map(all.map((i) => [i.id, i]));
    const reflections = all.filter((i) => i.kind === 'reflection');
    const top = Math.max(...reflections.map((r) => r.generation));
    assert.ok(top >= 3, `expected at least 3 generations over ${conversation.turns.length} turns, got ${top}`);
    for (const r of reflections) {
      const covered = r.covers.map((id) => byId.get(id));
      assert.ok(
        covered.every((c) => c && c.status === 'archived'),
        `reflection ${r.id} covers an item that is not archived`,
      );
      if (r.generation === 1)
        assert.ok(
          covered.every((c) => c?.kind === 'observation'),
          `generation-1 reflection ${r.id} covers a non-observation`,
        );
      else {
        assert.equal(covered.length, THRESHOLD, `generation ${r.generation} reflection condensed ${covered.length} reflections`);
        assert.ok(
          covered.every((c) => c?.kind === 'reflection' && c.generation === r.generation - 1),
          `reflection ${r.id} covers the wrong generation`,
        );
      }
    }
    const status = (await s.call<MemoryStatusReport>('GET', '/v1/banks/loco/threads/t/memory')).body;
    assert.equal(status.generationCount, top);
    for (const n of Object.values(status.windows.active.reflections.byGeneration))
      assert.ok(n < THRESHOLD, `${n} active reflections of one generation (threshold ${THRESHOLD})`);

    // Events against state.
    await new Promise((r) => setTimeout(r, 200));
    stream.stop();
    const events = stream.events;
    const cycles = new Map<string, string[]>();
    for (const e of events) cycles.set(e.cycleId, [...(cycles.get(e.cycleId) ?? []), e.type]);
    for (const [cycle, types] of cycles) {
      if (types[0].endsWith('.start'))
        assert.ok(types.length === 2 && /\.(end|failed)$/.test(types[1]), `cycle ${cycle} is ${types.join(', ')}`);
    }
    const observed = events.filter((e) => (e.type === 'activation' && e.operation === 'observation') || e.type === 'observation.end');
    const observedMessages = observed.reduce((n, e) => n + e.count, 0);
    assert.equal(observedMessages, status.messages.count - status.windows.active.messages.count, 'messages observed per events vs status');
    const observedIds = new Set(observed.flatMap((e) => e.itemIds));
    const settledObservations = all.filter((i) => i.kind === 'observation');
    assert.deepEqual(new Set(settledObservations.map((o) => o.id)), observedIds, 'activated/observed ids vs stored observations');
    const bufferedEnds = events.filter((e) => e.type === 'buffering.end' && e.operation === 'observation').flatMap((e) => e.itemIds);
    const stillBuffered = bufferedEnds.filter((id) => !observedIds.has(id));
    assert.equal(stillBuffered.length, status.windows.buffered.observations.chunks, 'buffered chunks per events vs status');
    const reflected = events
      .filter((e) => e.type === 'reflection.end' || (e.type === 'activation' && e.operation === 'reflection'))
      .flatMap((e) => e.itemIds);
    assert.deepEqual(new Set(reflected), new Set(reflections.map((r) => r.id)), 'reflection ids per events vs stored reflections');
    assert.equal(events[events.length - 1].generationCount, status.generationCount);
    for (const e of events.filter((e) => e.type.endsWith('.end')))
      assert.ok(
        e.durationMs !== null && e.durationMs >= 0 && e.outputTokens !== null,
        `event without duration or tokens: ${JSON.stringify(e)}`,
      );
  });
});
