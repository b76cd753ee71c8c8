// Sessions as a unit of time, over real HTTP: a conversation of six dated sessions (retained out of order, one of
// them named by an explicit `session` instead of a document) is recalled by "our first session", "last time",
// "sessions 2 through 4", "two sessions ago" and more; the top 10 holds only facts of the sessions named, and every
// result says which session it came from. Deleting a session's document renumbers the rest.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RecallResponse } from '../src/recall/types.ts';
import { startServer, type TestServer } from './support/server.ts';

const BANK = 'sessions';

interface Item {
  content: string;
  speaker: string;
  role: 'user' | 'assistant';
  timestamp: string;
  documentId?: string;
  session?: string;
}

/** Turns of one session, a minute apart, in the document `chat-n` (or under an explicit session name). */
function session(n: number, day: string, turns: Array<['user' | 'assistant', string]>, named?: string): Item[] {
  return turns.map(([role, content], i) => ({
    content,
    role,
    speaker: role === 'user' ? 'Maya' : 'Assistant',
    timestamp: `${day}T18:${String(10 + i).padStart(2, '0')}:00Z`,
    ...(named ? { session: named } : { documentId: `chat-${n}` }),
  }));
}

const SESSIONS: Item[][] = [
  session(1, '2024-03-04', [
    ['user', 'I want to start a vegetable garden on my balcony this spring.'],
    ['assistant', 'Raised planters work well on balconies; tomatoes and basil grow happily side by side.'],
    ['user', 'I bought cherry tomato seedlings and a bag of compost today.'],
  ]),
  session(2, '2024-03-11', [
    ['user', 'My partner and I are planning a trip to Lisbon in May.'],
    ['assistant', 'Alfama is lovely for a first visit, and the tram 28 passes right through it.'],
    ['user', 'We booked a small hotel near the castle for five nights.'],
  ]),
  session(3, '2024-03-18', [
    ['user', 'I started learning Rust and the borrow checker keeps rejecting my code.'],
    ['assistant', 'The Rust Book chapter on ownership explains borrowing with good examples.'],
    ['user', 'I rewrote my parser with lifetimes and it finally compiles.'],
  ]),
  session(4, '2024-03-25', [
    ['user', 'My sister Lena is getting married in June and asked me to give a speech.'],
    ['assistant', 'Open with a short story about Lena that the guests will recognise.'],
    ['user', 'I found a handmade ceramic vase for the wedding gift.'],
  ]),
  session(5, '2024-04-02', [
    ['user', 'I signed up for the Hamburg half marathon in September.'],
    ['assistant', 'Build up slowly: three easy runs a week and one longer run on Sundays.'],
    ['user', 'My left knee hurts after long runs, so I bought new running shoes.'],
  ]),
  session(
    6,
    '2024-04-09',
    [
      ['user', 'I have a job interview at a fintech startup called Ledgerly on Thursday.'],
      ['assistant', 'Prepare a story about a project you led and research their payments product.'],
      ['user', 'They offered a salary of 85,000 euros and I want to negotiate for more.'],
    ],
    'interview-chat',
  ),
];

/** Retained out of order: the third session first, the first with the fifth, the sixth before the second. */
const RETAIN_ORDER = [[3], [1, 5], [6], [2], [4]];

describe('sessions in recall', () => {
  let server: TestServer;

  const recall = async (query: string, queryTime = '2024-04-20T10:00:00Z'): Promise<RecallResponse> => {
    const r = await server.call<RecallResponse>('POST', `/v1/banks/${BANK}/recall`, { query, queryTime, limit: 10 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  /** The session ordinals of the results, asserting each result has one. */
  const ordinals = (response: RecallResponse): number[] =>
    response.results.map((r) => {
      assert.ok(r.session, `result '${r.text}' has a session`);
      return r.session.ordinal;
    });
  const assertOnly = async (query: string, expected: number[], queryTime?: string): Promise<RecallResponse> => {
    const response = await recall(query, queryTime);
    assert.ok(response.results.length > 0, `${query}: some results`);
    const got = ordinals(response);
    assert.ok(
      got.every((o) => expected.includes(o)),
      `${query}: sessions ${JSON.stringify(got)} are all in ${JSON.stringify(expected)}`,
    );
    return response;
  };

  before(async () => {
    server = await startServer();
    assert.equal((await server.call('POST', '/v1/banks', { id: BANK })).status, 201);
    for (const group of RETAIN_ORDER) {
      const items = group.flatMap((n) => SESSIONS[n - 1]);
      const r = await server.call('POST', `/v1/banks/${BANK}/memories`, { items });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
  });
  after(async () => {
    await server.close();
  });

  test('"our first session" returns only facts of the first session, by time, though it was retained second', async () => {
    const response = await assertOnly('What did we discuss in our first session?', [1]);
    assert.ok(
      response.results.some((r) => /tomato/i.test(r.text)),
      'the garden facts are found though no word matches',
    );
    assert.deepEqual(response.results[0].session, { id: 'chat-1', ordinal: 1 });
  });

  test('"last time" is the latest session before the query; "two sessions ago" the one before it', async () => {
    const last = await assertOnly('What did I tell you last time?', [6]);
    assert.equal(last.results[0].session?.id, 'interview-chat', 'a session named explicitly');
    await assertOnly('What did we talk about two sessions ago?', [5]);
    await assertOnly('What did you recommend in the previous session?', [6]);
  });

  test('during a session, "last time" and "two sessions ago" count back from the session in progress', async () => {
    const during = '2024-04-09T19:00:00Z';
    await assertOnly('What did I tell you last time?', [5], during);
    await assertOnly('What did we talk about two sessions ago?', [4], during);
  });

  test('"sessions 2 through 4" and "between our second and fourth sessions" return only facts of those sessions', async () => {
    const response = await assertOnly('What did we talk about in sessions 2 through 4?', [2, 3, 4]);
    assert.ok(new Set(ordinals(response)).size >= 2, 'more than one of them');
    await assertOnly('What changed between our second and fourth sessions?', [2, 3, 4]);
  });

  test('"our 3rd conversation" and "in our earlier chats"', async () => {
    const third = await assertOnly('Which book did you suggest in our 3rd conversation?', [3]);
    assert.ok(third.results.some((r) => /Rust Book/.test(r.text)));
    const earlier = await assertOnly('Did I mention my knee in our earlier chats?', [1, 2, 3, 4, 5]);
    assert.match(earlier.results[0].text, /knee/);
  });

  test('every result says which session it came from, also without a session in the query', async () => {
    const response = await recall('Where are we staying in Lisbon?');
    assert.ok(response.results.length > 0);
    ordinals(response);
    const hotel = response.results.find((r) => /hotel/.test(r.text));
    assert.deepEqual(hotel?.session, { id: 'chat-2', ordinal: 2 });
  });

  test('a session must be a non-empty string (or null)', async () => {
    for (const bad of ['', 5, ['a']]) {
      const r = await server.call<{ error: { message: string } }>('POST', `/v1/banks/${BANK}/memories`, {
        items: [{ content: 'x y z', session: bad }],
      });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.error.message, /session/);
    }
  });

  test("deleting the first session's document makes the second the first", async () => {
    assert.equal((await server.call('DELETE', `/v1/banks/${BANK}/documents/chat-1`)).status, 200);
    const response = await assertOnly('What did we discuss in our first session?', [1]);
    assert.ok(response.results.every((r) => r.session?.id === 'chat-2'));
  });
});
