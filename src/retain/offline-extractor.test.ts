import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OfflineExtractor } from './offline-extractor.ts';

const extract = (text: string, speaker: string | null = 'Alice') =>
  new OfflineExtractor().extract({ bankId: 'b', text, speaker, fromAgent: false, timestamp: '2024-03-01T12:00:00.000Z', context: null });

test('entities: the speaker, typed names without relation words, other capitalised words untyped; no times', async () => {
  const [fact] = await extract('I met my sister Anna on Monday in Oslo with Tom Okafor from Zylo Labs and Wren.');
  assert.equal(fact.text, "Alice met Alice's sister Anna on Monday in Oslo with Tom Okafor from Zylo Labs and Wren.");
  assert.deepEqual(fact.entities, [
    { name: 'Alice', type: 'person' },
    { name: 'Anna', type: 'person' },
    { name: 'Oslo', type: 'place' },
    { name: 'Tom Okafor', type: 'person' },
    { name: 'Zylo Labs', type: 'organization' },
    { name: 'Wren', type: null },
  ]);
  // Said on Friday 1 March: "met ... on Monday" is the Monday before, not the coming one.
  assert.equal(fact.occurredStart, '2024-02-26T00:00:00.000Z');
});

test('a time of day is no entity, alone or opening a run of capitalised words', async () => {
  const [fact] = await extract('The sync is at 3 PM, dinner at 7 PM Friday with Dana and the demo at 10 a.m. or 11 A.M. in Oslo.');
  assert.deepEqual(fact.entities, [
    { name: 'Alice', type: 'person' },
    { name: 'Dana', type: 'person' },
    { name: 'Oslo', type: 'place' },
  ]);
});

test('a named person in a lower-case sentence is still found', async () => {
  const [fact] = await extract('yesterday i called harry about the trip.');
  assert.ok(
    fact.entities.some((e) => e.name === 'harry' && e.type === 'person'),
    JSON.stringify(fact.entities),
  );
});

test('a sentence starting "So" is caused by the one before it', async () => {
  const facts = await extract('The bakery near Anna closed down. So I started baking bread at home.');
  assert.equal(facts.length, 2);
  assert.deepEqual(facts[1].causedBy, [0]);
});

test('markup: list items are facts of their own, headings are not facts but date and title the facts under them', async () => {
  const text =
    '**March 20, 2024, 9:00 PM**\n- **Current Mood**: Sad and reflective.\n- Walked in Greenfield Park with Andrew\n\n### Next steps\nCall the lawyer about the will.';
  const facts = await extract(text);
  assert.deepEqual(
    facts.map((f) => f.text),
    ['Current Mood: Sad and reflective.', 'Walked in Greenfield Park with Andrew', 'Call the lawyer about the will.'],
  );
  assert.deepEqual(
    facts.map((f) => f.section),
    ['March 20, 2024, 9:00 PM', 'March 20, 2024, 9:00 PM', 'Next steps'],
  );
  assert.equal(facts[1].occurredStart?.slice(0, 10), '2024-03-20');
  assert.equal(facts[2].occurredStart, null);
  assert.ok(facts[1].entities.some((e) => e.name === 'Andrew'));
  assert.ok(!facts[0].entities.some((e) => e.name === 'Mood' || e.name === 'Sad'), JSON.stringify(facts[0].entities));
});

test('a short lead-in opens the fact after it; one introducing code or an error line stays a fact of its own', async () => {
  const text =
    '1. **Redis Client Setup:**\n   - Use Redis Sentinel for the connection pool.\n   - Retry twice on failure.\n\n' +
    "Here's the config:\n```js\nconst client = new Redis({ host: 'cache' });\n```\n" +
    'Handling Disconnections:\nThe client reconnects after five seconds.\n\nThe log says:\nError: connect ECONNREFUSED 127.0.0.1:6379\n\nNotes:';
  const facts = await extract(text);
  assert.deepEqual(
    facts.map((f) => f.text),
    [
      'Redis Client Setup: Use Redis Sentinel for the connection pool.',
      'Retry twice on failure.',
      "Here's the config:",
      'Handling Disconnections: The client reconnects after five seconds.',
      'The log says:',
      'Error: connect ECONNREFUSED 127.0.0.1:6379',
      'Notes:',
    ],
  );
  // The joined fact's span runs from the lead-in to the end of the unit it opens; the code's identifiers stay with
  // the sentence introducing it.
  assert.equal(text.slice(facts[0].start, facts[0].end).startsWith('**Redis Client Setup:**'), true);
  assert.equal(text.slice(facts[0].start, facts[0].end).endsWith('connection pool.'), true);
  assert.ok(facts[2].terms?.includes('client'), JSON.stringify(facts[2].terms));
  assert.ok(
    facts[0].entities.some((e) => e.name === 'Redis Sentinel'),
    JSON.stringify(facts[0].entities),
  );
});

test('a lead-in opens no unit under another heading', async () => {
  const facts = await extract('- Open questions:\n\n### Next week\n- Move the staging cluster to Frankfurt.');
  assert.deepEqual(
    facts.map((f) => f.text),
    ['Open questions:', 'Move the staging cluster to Frankfurt.'],
  );
});

test('lead-ins in a row stay apart: the nearest opens the unit after them', async () => {
  const facts = await extract('- Caching layer:\n- Redis setup:\n- Use Redis Sentinel for failover.');
  assert.deepEqual(
    facts.map((f) => f.text),
    ['Caching layer:', 'Redis setup: Use Redis Sentinel for failover.'],
  );
  // A long run of labels gives one fact each, never one text growing label by label.
  const labels = Array.from({ length: 2000 }, (_, i) => `- Step label ${i}:`).join('\n');
  const many = await extract(`${labels}\n- Use Redis Sentinel for failover.`);
  assert.equal(many.length, 2000);
  assert.equal(many.at(-1)?.text, 'Step label 1999: Use Redis Sentinel for failover.');
});

test('a unit of punctuation or a list marker alone ("...", "::", "!!", "1.") gives no fact; one with a word or a number does', async () => {
  const texts = async (text: string) => (await extract(text)).map((f) => f.text);
  for (const text of ['...', '::', '  !!  ', '-', '* ', '> ', '|---|---|', '1.', '2)', '...\n\n1.', 'b)'])
    assert.deepEqual(await texts(text), [], JSON.stringify(text));
  assert.deepEqual(await texts('- Redis 7\n- ...\n- *\n'), ['Redis 7']);
  assert.deepEqual(await texts('a::b'), ['a::b']);
  assert.deepEqual(await texts('42'), ['42']);
});

test('prose wrapped at a fixed width reads as its sentences; lines written one by one stay units of their own', async () => {
  const texts = async (text: string) => (await extract(text, null)).map((f) => f.text);
  const email = [
    'After the outage on Tuesday we moved the primary database to the new',
    'cluster in Frankfurt. The failover took about twelve minutes, which is',
    'longer than the five minutes we promised in the runbook, so Maria will',
    'rewrite the checklist before Friday.',
  ];
  const sentences = [
    'After the outage on Tuesday we moved the primary database to the new cluster in Frankfurt.',
    'The failover took about twelve minutes, which is longer than the five minutes we promised in the runbook, so Maria will rewrite the checklist before Friday.',
  ];
  assert.deepEqual(await texts(email.join('\n')), sentences);
  // The same paragraph under a heading, after another one, with Windows line ends.
  assert.deepEqual(await texts(`## Outage\n\nWe wrote this up for the team.\n\n${email.join('\r\n')}`), [
    'We wrote this up for the team.',
    ...sentences,
  ]);
  // Lines that were never wrapped: each stays as it was.
  const apart = async (lines: string[], what: string) => assert.deepEqual(await texts(lines.join('\n')), lines, what);
  await apart(
    [
      'node 0 of the cache cluster reported 12 ms latency in region eu-west-1',
      'node 1 of the cache cluster reported 19 ms latency in region eu-west-1',
      'node 2 of the cache cluster reported 26 ms latency in region eu-west-1.',
    ],
    'a list written line by line',
  );
  await apart(
    [
      'alice: I think we should move the standup to ten because of the new hires',
      'bob: fine by me but check with the people in the other office first',
      'alice: great, I will ask the facilities team about the room.',
    ],
    "speakers' turns",
  );
  await apart(
    [
      'so I finally got the staging deploy working after the whole afternoon',
      'tomorrow I want to look at the flaky payment tests again',
      'the coffee machine is broken again.',
    ],
    'chat lines of different lengths',
  );
  await apart(
    [
      '> We moved the primary database to the new cluster in Frankfurt last night',
      '> and the failover took about twelve minutes in the end.',
      'Thanks for the update, that is longer than we promised in the runbook.',
    ],
    'a quote and its reply',
  );
  await apart(['The deploy of the payments service finished at noon without any errors', 'logs were clean.'], 'two lines tell no wrap');
  // Lines of one width written one by one: each opens its own statement (a capital, a time), never a sentence's next word.
  await apart(
    [
      'Renew the TLS certificates for the staging cluster before Friday',
      'Move the nightly export job to the new scheduler in Frankfurt',
      'Ask the finance team about the invoice for the extra GPU nodes.',
    ],
    'a to-do list without markers',
  );
  await apart(
    [
      '14:32:10 payments worker picked up job 88123 from the retry queue',
      '14:32:11 payments worker failed job 88123 with a timeout from Stripe',
      '14:32:15 payments worker gave up on job 88123 after five attempts.',
    ],
    'log lines opening with their time',
  );
  await apart(
    [
      'Monday slept badly and skipped the gym because of the early meeting',
      'Tuesday went running in the park for forty minutes before the rain',
      'Wednesday had dinner with Anna and her brother at the Thai place.',
    ],
    'diary entries',
  );
});
