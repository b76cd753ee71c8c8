import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSessionExpressions, type SessionRef } from './session-expressions.ts';

const refs = (text: string): SessionRef[] => parseSessionExpressions(text).map((e) => e.ref);
const ordinal = (from: number, to = from): SessionRef => ({ kind: 'ordinal', from, to });
const ago = (from: number, to = from): SessionRef => ({ kind: 'ago', from, to });

test('a session named by its ordinal: words, digits, and after the noun', () => {
  for (const [text, n] of [
    ['What did we discuss in our first session?', 1],
    ['What did I ask in our 3rd conversation?', 3],
    ['Remind me what you recommended in the second chat.', 2],
    ['In session 3, what did I decide about the database?', 3],
    ['What came up in session #5?', 5],
    ['What did we cover in session three?', 3],
    ['Summarise our very first conversation', 1],
    ['What did we talk about in the 12th session?', 12],
    ['the tenth chat', 10],
  ] as const)
    assert.deepEqual(refs(text), [ordinal(n)], text);
});

test('ranges of sessions: through, to, dashes, between and from ... to', () => {
  for (const text of [
    'What did we discuss in sessions 2 through 4?',
    'sessions 2-4',
    'sessions 2 – 4',
    'sessions 2 to 4',
    'conversations two through four',
    'Between our second and fourth sessions, what changed?',
    'between the 2nd and the 4th conversation',
    'From the second to the fourth session, how did my plan evolve?',
  ])
    assert.deepEqual(refs(text), [ordinal(2, 4)], text);
  assert.deepEqual(refs('What did we cover in the first two sessions?'), [ordinal(1, 2)]);
  assert.deepEqual(refs('our first three chats'), [ordinal(1, 3)]);
});

test('several sessions named apart', () => {
  assert.deepEqual(refs('Compare the first and third sessions'), [ordinal(1), ordinal(3)]);
  assert.deepEqual(refs('sessions 2 and 5'), [ordinal(2), ordinal(5)]);
});

test('the previous session: last time, previous, latest, most recent', () => {
  for (const text of [
    'What did you suggest last time?',
    'Last time, you said I should rest more.',
    'last time we talked, what did I say about my sister?',
    'What was the plan the last time we spoke?',
    'Where did we leave things when we last talked?',
    'Last time I told you about my trip; any thoughts?',
    'What did we discuss in the previous session?',
    'In our last conversation you mentioned a book.',
    'our latest chat',
    'What did I say in our most recent session?',
    'the prior session',
    'What did we talk about one session ago?',
  ])
    assert.deepEqual(refs(text), [ago(1)], text);
});

test('sessions counted back: two sessions ago, the one before last, the last three', () => {
  assert.deepEqual(refs('What did we discuss two sessions ago?'), [ago(2)]);
  assert.deepEqual(refs('3 chats ago'), [ago(3)]);
  assert.deepEqual(refs('the session before last'), [ago(2)]);
  assert.deepEqual(refs('in the second-to-last session'), [ago(2)]);
  assert.deepEqual(refs('the second to last conversation'), [ago(2)]);
  assert.deepEqual(refs('our penultimate session'), [ago(2)]);
  assert.deepEqual(refs('What did we cover in the last three sessions?'), [ago(1, 3)]);
  assert.deepEqual(refs('the past two conversations'), [ago(1, 2)]);
});

test('earlier sessions: every session before the latest', () => {
  for (const text of [
    'Did I mention allergies in our earlier chats?',
    'in earlier sessions',
    'What did we say in previous conversations about the budget?',
    'across our past sessions',
    'in an earlier conversation',
    'in our prior chats',
  ])
    assert.deepEqual(refs(text), [{ kind: 'earlier' }], text);
});

test('the session in progress, and the first time we talked', () => {
  assert.deepEqual(refs('What did I say earlier in this session?'), [{ kind: 'current' }]);
  assert.deepEqual(refs('in this conversation'), [{ kind: 'current' }]);
  assert.deepEqual(refs('What did we talk about the first time we spoke?'), [ordinal(1)]);
});

test('the matched text and its place in the query', () => {
  const [e] = parseSessionExpressions('So, in our 3rd conversation, what did I ask?');
  assert.equal(e.text, 'our 3rd conversation');
  assert.equal(e.index, 'So, in '.length);
  const [r] = parseSessionExpressions('sessions 2 through 4');
  assert.equal(r.text, 'sessions 2 through 4');
});

test("not sessions of ours: someone else's, of an event, a first time doing something else, plain words", () => {
  for (const text of [
    'When was the last time I went to Paris?',
    'Last time I checked, the build took 40 seconds.',
    'What happened in her first session with the therapist?',
    "What did Caroline say about Melanie's first conversation with her mentor?",
    'What did Melanie say about her last chat with Caroline?',
    'What was discussed in the first session of the conference?',
    'How many training sessions did she run?',
    'my first therapy session',
    'the first conversation with Bob',
    'What did I tell you about my session with Dr. Lee?',
    'What time is it?',
    'Alice went to a painting session last week.',
    'the last time she visited',
    'This time we will win.',
    'What did the previous owner do?',
    'Describe the sessions API of the server.',
    'What was the session timeout set to?',
    'What should I expect from my first session?',
    'What changed since our last chat?',
    'A lot happened since last time.',
    'Why did the previous session token expire?',
  ])
    assert.deepEqual(refs(text), [], text);
});

test('a session with you or me is ours', () => {
  assert.deepEqual(refs('What did we discuss in the first session with you?'), [ordinal(1)]);
  assert.deepEqual(refs('my last chat with you'), [ago(1)]);
});
