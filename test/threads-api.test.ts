// Thread memory over real HTTP on the real embedded store: appending in every accepted shape, refused settings
// (400 with a message naming the clash), what the offline observer keeps and drops, resource scope pooling,
// working memory and remember, the SSE stream, clear and delete, the bridge into the fact memory, the CLI
// command bodies, and the OpenAPI document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../src/text/tokens.ts';
import { runMemoryCommand } from '../src/cli/commands/thread-memory-report.ts';
import type { MemoryStatusReport } from '../src/threads/status.ts';
import { DEFAULT_THREAD_SETTINGS } from '../src/threads/settings.ts';
import { readEvents, startThreadServer, type ThreadTestServer } from './support/threads.ts';
import type { MemoryItem, ThreadMessage } from '../src/threads/types.ts';

type Err = { error: { code: string; message: string } };
type Append = { threadId: string; recordId: string; messages: ThreadMessage[]; warnings: string[] };
type Context = {
  prefix: string;
  prefixHash: string;
  totalTokens: number;
  messages: ThreadMessage[];
  currentTask: string | null;
  workingMemory: boolean;
};

const SMALL = { messageTokens: 120, bufferTokens: false, observationTokens: 0, workingMemory: { autoUpdate: false } };

describe('thread memory API', () => {
  let s: ThreadTestServer;
  before(async () => {
    s = await startThreadServer();
    for (const id of ['a', 'cfg', 'res', 'wm', 'prof', 'obs', 'sse', 'clr', 'br', 'bro', 'cli'])
      assert.equal((await s.call('POST', '/v1/banks', { id })).status, 201);
  });
  after(async () => s.close());

  test('append one message, an array, or an envelope; messages are stored in order with their token cost', async () => {
    const one = await s.call<Append>('POST', '/v1/banks/a/threads/t1/messages', { role: 'user', content: 'I need a flight to Lisbon.' });
    assert.equal(one.status, 200, JSON.stringify(one.body));
    assert.equal(one.body.messages.length, 1);
    assert.equal(one.body.messages[0].tokens, countTokens('I need a flight to Lisbon.') + 4);
    const many = await s.call<Append>('POST', '/v1/banks/a/threads/t1/messages', [
      { role: 'assistant', content: 'Searching.', toolCalls: [{ name: 'search_flights', arguments: { to: 'LIS' } }] },
      { role: 'tool', content: '{"flights": []}' },
    ]);
    assert.equal(many.status, 200, JSON.stringify(many.body));
    const env = await s.call<Append>('POST', '/v1/banks/a/threads/t1/messages', {
      messages: [{ role: 'user', content: 'Any on Friday?', timestamp: '2024-03-01T10:00:00Z' }],
    });
    assert.equal(env.status, 200);
    assert.equal(env.body.messages[0].timestamp, '2024-03-01T10:00:00.000Z');
    const listed = await s.call<{ messages: ThreadMessage[] }>('GET', '/v1/banks/a/threads/t1/messages');
    assert.deepEqual(
      listed.body.messages.map((m) => m.content),
      ['I need a flight to Lisbon.', 'Searching.', '{"flights": []}', 'Any on Friday?'],
    );
    assert.deepEqual(listed.body.messages[1].toolCalls, [{ name: 'search_flights', arguments: { to: 'LIS' } }]);
    const seqs = listed.body.messages.map((m) => m.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((x, y) => x - y),
    );

    const bad = [
      [{ role: 'user', content: '  ' }, /content/],
      [{ role: 'robot', content: 'hi' }, /role/],
      [[], /at least one message/],
      [{ messages: [{ role: 'user', content: 'x', extra: 1 }] }, /extra|Unrecognized/i],
      [{ role: 'user', content: 'x', timestamp: 'yesterday' }, /timestamp/],
    ] as const;
    for (const [body, pattern] of bad) {
      const r = await s.call<Err>('POST', '/v1/banks/a/threads/t1/messages', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.error.message, pattern);
    }
    assert.equal((await s.call('POST', '/v1/banks/nope/threads/t1/messages', { role: 'user', content: 'x' })).status, 404);
    assert.equal((await s.call('GET', '/v1/banks/a/threads/missing/context')).status, 404);
  });

  test("a deleted bank's thread routes say when it was deleted", async () => {
    assert.equal((await s.call('POST', '/v1/banks', { id: 'gone' })).status, 201);
    assert.equal((await s.call('POST', '/v1/banks/gone/threads/t1/messages', { role: 'user', content: 'Hello.' })).status, 200);
    assert.equal((await s.call('DELETE', '/v1/banks/gone')).status, 200);
    for (const [method, path, body] of [
      ['GET', '/v1/banks/gone/threads/t1', undefined],
      ['POST', '/v1/banks/gone/threads/t1/messages', { role: 'user', content: 'Hello again.' }],
    ] as const) {
      const res = await s.call<{ error: { message: string } }>(method, path, body);
      assert.equal(res.status, 404, path);
      assert.match(res.body.error.message, /^bank 'gone' was deleted at /, path);
    }
  });

  test('a lone surrogate in a message is stored as one U+FFFD', async () => {
    const r = await s.call<Append>('POST', '/v1/banks/a/threads/t-broken/messages', {
      role: 'user',
      name: 'Ana \uD83D',
      content: 'Book it \uDE00 now.',
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const listed = await s.call<{ messages: Array<ThreadMessage & { name: string | null }> }>(
      'GET',
      '/v1/banks/a/threads/t-broken/messages',
    );
    assert.equal(listed.body.messages[0].content, 'Book it \uFFFD now.');
    assert.equal(listed.body.messages[0].name, 'Ana \uFFFD');
    const bad = await s.call<Err>('POST', '/v1/banks/a/threads/t-broken2/messages', {
      messages: [{ role: 'user', content: 'hi' }],
      resourceId: 'r\uD800',
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /resourceId holds a lone surrogate/);
    const wm = await s.call<{ content: string }>('POST', '/v1/banks/a/threads/t-broken/remember', { note: '\uD800Yan likes jazz.' });
    assert.equal(wm.status, 200, JSON.stringify(wm.body));
    assert.ok(wm.body.content.includes('\uFFFDYan likes jazz.'), wm.body.content);
  });

  test('invalid settings are refused with a 400 that names the clash, and nothing is saved', async () => {
    const refused: Array<[unknown, RegExp]> = [
      [{ bufferTokens: 5000 }, /bufferTokens .* below messageTokens/],
      [{ messageTokens: 1000, bufferActivation: 2000 }, /bufferActivation/],
      [{ blockAfter: 0.5 }, /blockAfter/],
      [{ messageTokens: 4000, blockAfter: 3000 }, /blockAfter .* above messageTokens/],
      [{ reflectionConsolidationThreshold: 1 }, /reflectionConsolidationThreshold/],
      [{ messageTokens: 1000, messageTokenBudget: 500 }, /messageTokenBudget .* below messageTokens/],
      [{ observationTokens: 1000, reflectionBlockAfter: 900 }, /reflectionBlockAfter/],
      [{ messageTokens: 0 }, /messageTokens/],
      [{ maxObservationsInContext: -1 }, /maxObservationsInContext/],
      [{ colour: 'blue' }, /colour/],
      [{ observer: 'llm' }, /needs an LLM/],
    ];
    for (const [body, pattern] of refused) {
      const r = await s.call<Err>('PATCH', '/v1/banks/cfg/thread-settings', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)} was accepted`);
      assert.equal(r.body.error.code, 'bad_request');
      assert.match(r.body.error.message, pattern);
    }
    const saved = await s.call<{ settings: Record<string, unknown>; effective: { messageTokens: number } }>(
      'GET',
      '/v1/banks/cfg/thread-settings',
    );
    assert.deepEqual(saved.body.settings, {});
    assert.equal(saved.body.effective.messageTokens, DEFAULT_THREAD_SETTINGS.messageTokens);

    const ok = await s.call<{ effective: { bufferTokens: number; keepTokens: number; blockAfterTokens: number } }>(
      'PATCH',
      '/v1/banks/cfg/thread-settings',
      { messageTokens: 1000, bufferTokens: 0.2, bufferActivation: 0.7, blockAfter: 1.5 },
    );
    assert.equal(ok.status, 200);
    assert.deepEqual([ok.body.effective.bufferTokens, ok.body.effective.keepTokens, ok.body.effective.blockAfterTokens], [200, 300, 1500]);

    // A thread override is checked against the bank's settings it merges with.
    const thread = await s.call<Err>('PUT', '/v1/banks/cfg/threads/t', { settings: { bufferTokens: 1000 } });
    assert.equal(thread.status, 400);
    assert.match(thread.body.error.message, /thread 't'.*bufferTokens/);
    assert.equal((await s.call('GET', '/v1/banks/cfg/threads/t')).status, 404);

    // Scope 'resource' needs a resourceId.
    assert.equal((await s.call('PUT', '/v1/banks/cfg/threads/r', { settings: { scope: 'resource' } })).status, 400);

    // Settings written through the bank's own config are checked the same way.
    const around = await s.call<Err>('PATCH', '/v1/banks/cfg', { config: { threads: { messageTokens: -5 } } });
    assert.equal(around.status, 400);
    assert.match(around.body.error.message, /config\.threads.*messageTokens/);
  });

  test('the offline observer keeps decisions, intent, facts and constraints and drops code, tool output and greetings', async () => {
    await s.call('PATCH', '/v1/banks/obs/thread-settings', { ...SMALL, messageTokens: 150 });
    const messages = [
      { role: 'user', name: 'Dana', content: 'Hi there!' },
      {
        role: 'user',
        name: 'Dana',
        content: 'I need to migrate our billing service to Postgres before the March 15 deadline. We must not drop the audit tables.',
      },
      {
        role: 'assistant',
        content:
          'Here is the schema dump:\n```sql\nCREATE TABLE invoices (id serial primary key, total numeric);\n```\nI ran the exporter.',
        toolCalls: [{ name: 'run_exporter', arguments: { db: 'billing' } }],
      },
      { role: 'tool', content: 'exported 48213 rows in 12.4s; warnings: 0; checksum 9f8a7b6c5d4e' },
      { role: 'assistant', content: 'We decided to use logical replication for the cutover. The export finished without errors.' },
      { role: 'user', name: 'Dana', content: 'Thanks! Next we still need to update the connection strings in the payments app.' },
    ];
    const r = await s.call<Append>('POST', '/v1/banks/obs/threads/m/messages', messages);
    assert.equal(r.status, 200);
    await s.memory.idle();
    const items = (await s.call<{ items: MemoryItem[] }>('GET', '/v1/banks/obs/threads/m/observations?status=active')).body.items;
    assert.equal(items.length, 1, 'one synchronous observation at the threshold');
    const text = items[0].text;
    assert.match(text, /Postgres/);
    assert.match(text, /March 15/);
    assert.match(text, /must not drop the audit tables/);
    assert.match(text, /logical replication/);
    assert.match(text, /Tools used: run_exporter/);
    assert.doesNotMatch(text, /CREATE TABLE|```|48213|checksum|Hi there/);
    assert.ok(items[0].tokens < items[0].inputTokens, 'the observation is smaller than what it covers');
    const ctx = (await s.call<Context>('GET', '/v1/banks/obs/threads/m/context')).body;
    assert.match(ctx.currentTask ?? '', /connection strings/);
    assert.match(ctx.prefix, /## Observations[\s\S]*Postgres/);
    assert.match(ctx.prefix, /## Current task\nDana: .*connection strings[\s\S]*Suggested response: /);
    assert.equal(ctx.messages.length, 0, 'everything was observed (no buffering: nothing kept raw)');
  });

  test('resource scope pools observations and working memory across one resource’s threads', async () => {
    await s.call('PATCH', '/v1/banks/res/thread-settings', { ...SMALL, messageTokens: 50, scope: 'resource' });
    const a = await s.call<Append>('POST', '/v1/banks/res/threads/alpha/messages', {
      resourceId: 'user-42',
      messages: [
        { role: 'user', content: 'My daughter Mia is allergic to peanuts, so every recipe must be peanut free.' },
        { role: 'user', content: 'We decided to cook Thai green curry for her birthday party on Saturday the 9th.' },
        { role: 'user', content: 'I still need to order the birthday cake from the bakery on Elm Street.' },
      ],
    });
    assert.equal(a.body.recordId, 'resource:user-42');
    await s.memory.idle();
    const b = await s.call<Append>('POST', '/v1/banks/res/threads/beta/messages', {
      resourceId: 'user-42',
      messages: [{ role: 'user', content: 'What should I bring?' }],
    });
    assert.equal(b.body.recordId, 'resource:user-42');
    await s.call('POST', '/v1/banks/res/threads/alpha/remember', { note: 'Prefers metric units' });
    const ctx = (await s.call<Context>('GET', '/v1/banks/res/threads/beta/context')).body;
    assert.match(ctx.prefix, /peanut/, 'thread beta sees what was observed in thread alpha');
    assert.match(ctx.prefix, /Prefers metric units/, 'working memory is shared by the resource');
    assert.deepEqual(
      ctx.messages.map((m) => m.content),
      ['What should I bring?'],
      'the raw tail is the thread’s own',
    );
    const other = await s.call<Append>('POST', '/v1/banks/res/threads/gamma/messages', {
      resourceId: 'user-7',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    assert.doesNotMatch((await s.call<Context>('GET', '/v1/banks/res/threads/gamma/context')).body.prefix, /peanut/);
    assert.equal(other.body.recordId, 'resource:user-7');
    const move = await s.call<Err>('POST', '/v1/banks/res/threads/alpha/messages', {
      resourceId: 'user-7',
      messages: [{ role: 'user', content: 'x' }],
    });
    assert.equal(move.status, 409);
    const noResource = await s.call<Err>('POST', '/v1/banks/res/threads/delta/messages', { role: 'user', content: 'hi' });
    assert.equal(noResource.status, 400);
    assert.match(noResource.body.error.message, /resourceId/);
  });

  test('working memory: template, remember, replace, cap, updates after turns, in the prefix', async () => {
    await s.call('PATCH', '/v1/banks/wm/thread-settings', {
      messageTokens: 2000,
      bufferTokens: false,
      workingMemory: { template: '# Profile\n\n## Preferences\n\n## Notes\n', maxTokens: 80 },
    });
    await s.call('POST', '/v1/banks/wm/threads/w/messages', { role: 'user', content: 'I prefer window seats on long flights.' });
    await s.memory.idle();
    let doc = (await s.call<{ content: string }>('GET', '/v1/banks/wm/threads/w/working-memory')).body.content;
    assert.match(doc, /## Preferences\n- I prefer window seats on long flights\./, 'updated after the turn');
    const remembered = await s.call<{ content: string }>('POST', '/v1/banks/wm/threads/w/remember', { note: 'Wife is called Ana' });
    assert.equal(remembered.status, 200);
    assert.match(remembered.body.content, /## Notes\n- Wife is called Ana/);
    assert.equal((await s.call('POST', '/v1/banks/wm/threads/w/remember', { note: '   ' })).status, 400);
    for (let i = 0; i < 12; i++)
      await s.call('POST', '/v1/banks/wm/threads/w/remember', { note: `Fact number ${i} about the trip to Kyoto in spring` });
    doc = (await s.call<{ content: string }>('GET', '/v1/banks/wm/threads/w/working-memory')).body.content;
    assert.ok(countTokens(doc) <= 80, `working memory holds ${countTokens(doc)} tokens, cap 80`);
    assert.match(doc, /Fact number 11/, 'the newest note survives the cap');
    assert.doesNotMatch(doc, /window seats/, 'automatic bullets go first');
    const ctx = (await s.call<Context>('GET', '/v1/banks/wm/threads/w/context')).body;
    assert.ok(ctx.workingMemory, 'working memory is in the context');
    assert.match(ctx.prefix, /## Working memory\n# Profile/);
    const replaced = await s.call<{ content: string }>('PUT', '/v1/banks/wm/threads/w/working-memory', {
      content: '# Profile\n- Vegetarian\n',
    });
    assert.equal(replaced.body.content, '# Profile\n- Vegetarian\n');
  });

  test('the profile follows the latest facts: a new value for an attribute replaces the old one', async () => {
    await s.call('PATCH', '/v1/banks/prof/thread-settings', {
      messageTokens: 4000,
      bufferTokens: false,
      workingMemory: { maxTokens: 1000 },
    });
    const say = async (content: string): Promise<void> => {
      assert.equal((await s.call('POST', '/v1/banks/prof/threads/p/messages', { role: 'user', content })).status, 200);
      await s.memory.idle();
    };
    for (const content of [
      'I live in Leeds.',
      'I work at the BBC. My manager is Sam Hale.',
      "I'm 34 years old. My favourite band is Blur. My favourite food is ramen.",
      'My partner is Alex. I prefer window seats on long flights.',
      'I work as a sound engineer.',
      'Big news: I moved to Porto last month!',
      'My new manager is Priya Nair, and I just turned 35.',
      'These days my favourite band is Pulp.',
      'Now I live in Lisbon, and I started working at Channel 4 as a producer.',
      "I'm married to Jo.",
    ])
      await say(content);
    const doc = (await s.call<{ content: string }>('GET', '/v1/banks/prof/threads/p/working-memory')).body.content;
    const lines = doc.split('\n').filter((l) => l.startsWith('- '));
    const current = lines.filter((l) => !/^- Previously:/.test(l)).join('\n');
    for (const latest of [
      /Lisbon/,
      /Channel 4/,
      /Priya Nair/,
      /turned 35/,
      /favourite band is Pulp/,
      /favourite food is ramen/,
      /married to Jo/,
      /window seats/,
    ])
      assert.match(current, latest, doc);
    for (const old of [/Leeds/, /Porto/, /BBC/, /Sam Hale/, /34 years/, /Blur/, /partner is Alex/, /sound engineer/])
      assert.doesNotMatch(current, old, `an earlier value is still stated as current:\n${doc}`);
    assert.equal(lines.filter((l) => /Lisbon/.test(l)).length, 1, doc);
  });

  test('SSE streams buffering, activation and observation events with token counts and durations, and resumes', async () => {
    await s.call('PATCH', '/v1/banks/sse/thread-settings', {
      messageTokens: 200,
      bufferTokens: 60,
      bufferActivation: 0.8,
      blockAfter: 1.5,
      observationTokens: 0,
      workingMemory: { enabled: false },
    });
    await s.call('POST', '/v1/banks/sse/threads/e/messages', {
      role: 'user',
      content: 'Kickoff: we are planning the Q3 offsite in Porto for twelve people.',
    });
    const stream = readEvents(`${s.url}/v1/banks/sse/threads/e/events`);
    await stream.ready;
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 16; i++) {
      await s.call('POST', '/v1/banks/sse/threads/e/messages', {
        role: i % 2 ? 'assistant' : 'user',
        content: `Item ${i}: we booked venue option ${i} near the river and decided the budget is ${1000 + i * 50} euros.`,
      });
      await s.memory.idle();
    }
    await new Promise((r) => setTimeout(r, 100));
    stream.stop();
    const types = stream.events.map((e) => e.type);
    assert.ok(types.includes('buffering.start') && types.includes('buffering.end') && types.includes('activation'), types.join(','));
    for (const end of stream.events.filter((e) => e.type === 'buffering.end')) {
      const start = stream.events.find((e) => e.type === 'buffering.start' && e.cycleId === end.cycleId);
      assert.ok(start, 'each end has its start');
      assert.equal(end.inputTokens, start.inputTokens);
      assert.ok(
        end.outputTokens !== null && end.outputTokens > 0 && end.outputTokens < end.inputTokens,
        `buffered ${end.inputTokens} tokens into ${end.outputTokens}`,
      );
      assert.ok(end.durationMs !== null && end.durationMs >= 0, 'duration reported');
      assert.equal(end.by, 'offline');
    }
    const activation = stream.events.find((e) => e.type === 'activation');
    assert.ok(activation?.chunks && activation.chunks >= 1 && activation.count > 0, `activation event: ${JSON.stringify(activation)}`);
    const status = (await s.call<MemoryStatusReport>('GET', '/v1/banks/sse/threads/e/memory')).body;
    assert.ok(
      status.windows.active.messages.tokens <= status.windows.active.messages.blockAfter,
      'unobserved tokens stay under blockAfter',
    );
    const activated = stream.events.filter((e) => e.type === 'activation' || e.type === 'observation.end').reduce((n, e) => n + e.count, 0);
    assert.equal(activated, status.messages.count - status.windows.active.messages.count, 'messages observed per events vs status');

    // Resume: Last-Event-ID replays what came after it.
    const mid = stream.events[Math.floor(stream.events.length / 2)].id;
    const res = await fetch(`${s.url}/v1/banks/sse/threads/e/events`, { headers: { 'Last-Event-ID': String(mid) } });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    await reader.cancel();
    const firstId = /id: (\d+)/.exec(new TextDecoder().decode(value))?.[1];
    assert.equal(Number(firstId), mid + 1);
  });

  test('clear removes the memory but keeps the messages, which are observed again', async () => {
    await s.call('PATCH', '/v1/banks/clr/thread-settings', SMALL);
    const long = Array.from({ length: 8 }, (_, i) => ({
      role: 'user',
      content: `Requirement ${i}: the report must include revenue for region ${i} by Monday.`,
    }));
    await s.call('POST', '/v1/banks/clr/threads/c/messages', long);
    await s.memory.idle();
    const before = (await s.call<MemoryStatusReport>('GET', '/v1/banks/clr/threads/c/memory')).body;
    assert.ok(before.windows.active.observations.count >= 1, 'observed before clearing');
    const cleared = await s.call<{ items: number }>('DELETE', '/v1/banks/clr/threads/c/memory');
    assert.equal(cleared.body.items, before.windows.active.observations.count + before.archived.observations);
    const after = (await s.call<MemoryStatusReport>('GET', '/v1/banks/clr/threads/c/memory')).body;
    assert.equal(after.windows.active.observations.count, 0);
    assert.equal(after.messages.count, 8);
    assert.equal(after.windows.active.messages.count, 8, 'messages are unobserved again');
    const text = await runMemoryCommand(s.memory, 'status', { bank: 'clr', thread: 'c' });
    assert.match(text, /unobserved 8/);
    await s.call('POST', '/v1/banks/clr/threads/c/messages', { role: 'user', content: 'And the appendix lists all sources.' });
    assert.ok((await s.call<MemoryStatusReport>('GET', '/v1/banks/clr/threads/c/memory')).body.windows.active.observations.count >= 1);
    assert.equal((await s.call('DELETE', '/v1/banks/clr/threads/c?reason=project%20closed')).status, 200);
    const gone = await s.call<{ error: { message: string } }>('GET', '/v1/banks/clr/threads/c/memory');
    assert.equal(gone.status, 404);
    assert.match(gone.body.error.message, /thread 'c' was deleted at .* \(reason: "project closed"\)/);
    assert.deepEqual(
      (await s.engine.audit.tombstones('clr', 10)).filter((t) => t.kind === 'thread').map((t) => [t.targetId, t.reason]),
      [['c', 'project closed']],
    );
  });

  test('the bridge retains a thread’s messages, or its observations, as facts of the bank', async () => {
    await s.call('PATCH', '/v1/banks/br/thread-settings', { ...SMALL, bridge: 'messages' });
    await s.call('POST', '/v1/banks/br/threads/b/messages', [
      { role: 'user', name: 'Omar', content: 'I moved to Nairobi in 2021 to work for a solar startup.' },
      { role: 'tool', content: 'lookup result: 17 rows' },
    ]);
    await s.memory.idle();
    const facts = await s.call<{ facts: Array<{ text: string; metadata: Record<string, string> }>; total: number }>(
      'GET',
      '/v1/banks/br/facts',
    );
    assert.ok(facts.body.total >= 1, 'the bridged message became facts');
    assert.ok(
      facts.body.facts.some((f) => /Nairobi/.test(f.text) && f.metadata.threadId === 'b'),
      JSON.stringify(facts.body.facts),
    );
    assert.ok(!facts.body.facts.some((f) => /lookup result/.test(f.text)), 'tool output is not retained');
    await s.call('POST', '/v1/banks/br/threads/b/messages', { role: 'user', content: 'Second message.' });
    await s.memory.idle();
    const again = await s.call<{ facts: Array<{ metadata: Record<string, string> }> }>('GET', '/v1/banks/br/facts');
    const fromFirst = again.body.facts.filter(
      (f) => f.metadata.messageId === facts.body.facts.find((x) => x.metadata.messageId)?.metadata.messageId,
    );
    assert.equal(
      fromFirst.length,
      facts.body.facts.filter((f) => f.metadata.messageId === fromFirst[0]?.metadata.messageId).length,
      'a message is retained once',
    );

    await s.call('PATCH', '/v1/banks/bro/thread-settings', { ...SMALL, messageTokens: 60, bridge: 'observations' });
    await s.call('POST', '/v1/banks/bro/threads/o/messages', [
      { role: 'user', content: 'Small talk only here, nothing to keep at all, how is the weather where you are today?' },
      { role: 'user', content: 'We decided the Lagos warehouse opens on 3 June and Kemi manages it.' },
      { role: 'user', content: 'The lease must be signed before the end of April.' },
      { role: 'user', content: 'Kemi needs to hire six people for the Lagos warehouse.' },
    ]);
    await s.memory.idle();
    // (The bank's own consolidation may add facts of kind 'observation' from these; the retained ones are the others.)
    const observed = await s.call<{ facts: Array<{ kind: string; text: string; metadata: Record<string, string> }> }>(
      'GET',
      '/v1/banks/bro/facts',
    );
    const retained = observed.body.facts.filter((f) => f.kind !== 'observation');
    assert.ok(retained.length >= 1, 'the observation became facts');
    assert.ok(
      retained.every((f) => f.metadata.observationId),
      `facts come from observations: ${JSON.stringify(retained)}`,
    );
    assert.ok(
      retained.some((f) => /Lagos/.test(f.text)),
      JSON.stringify(retained),
    );
  });

  test('CLI command bodies list, report and clear a thread’s memory', async () => {
    await s.call('PATCH', '/v1/banks/cli/thread-settings', SMALL);
    await s.call(
      'POST',
      '/v1/banks/cli/threads/k/messages',
      Array.from({ length: 6 }, (_, i) => ({
        role: 'user',
        content: `Decision ${i}: ship version ${i}.0 of the mobile app to the beta group on Friday.`,
      })),
    );
    await s.memory.idle();
    const list = await runMemoryCommand(s.memory, 'list', { bank: 'cli', thread: 'k' });
    assert.match(list, /obs_\S+ {2}observation {2}active/);
    assert.match(list, /mobile app/);
    const json = JSON.parse(await runMemoryCommand(s.memory, 'status', { bank: 'cli', thread: 'k', json: true })) as MemoryStatusReport;
    assert.equal(json.threadId, 'k');
    assert.ok(json.windows.active.observations.count >= 1, 'status shows the observation');
    assert.match(await runMemoryCommand(s.memory, 'clear', { bank: 'cli', thread: 'k' }), /cleared \d+ memory item/);
    assert.match(await runMemoryCommand(s.memory, 'list', { bank: 'cli', thread: 'k' }), /no observations or reflections/);
    await assert.rejects(runMemoryCommand(s.memory, 'status', { bank: 'cli', thread: 'nope' }), /thread 'nope' does not exist/);
  });

  test('the OpenAPI document lists the thread routes', async () => {
    const doc = await s.call<{ paths: Record<string, unknown> }>('GET', '/openapi.json');
    for (const p of [
      '/v1/banks/{bank}/threads/{thread}/messages',
      '/v1/banks/{bank}/threads/{thread}/context',
      '/v1/banks/{bank}/threads/{thread}/memory',
      '/v1/banks/{bank}/threads/{thread}/events',
      '/v1/banks/{bank}/threads/{thread}/remember',
      '/v1/banks/{bank}/thread-settings',
    ])
      assert.ok(doc.body.paths[p], p);
  });

  test('deleting a bank deletes its threads, messages and memory', async () => {
    assert.equal((await s.call('DELETE', '/v1/banks/obs')).status, 200);
    assert.equal((await s.call('POST', '/v1/banks', { id: 'obs' })).status, 201);
    assert.equal((await s.call('GET', '/v1/banks/obs/threads/m')).status, 404);
    assert.deepEqual((await s.call<{ threads: unknown[] }>('GET', '/v1/banks/obs/threads')).body.threads, []);
    const fresh = await s.call<Append>('POST', '/v1/banks/obs/threads/m/messages', { role: 'user', content: 'A new beginning.' });
    assert.equal(fresh.body.messages.length, 1);
    assert.equal((await s.call<{ messages: unknown[] }>('GET', '/v1/banks/obs/threads/m/messages')).body.messages.length, 1);
    assert.equal((await s.call<{ items: unknown[] }>('GET', '/v1/banks/obs/threads/m/observations')).body.items.length, 0);
  });
});
