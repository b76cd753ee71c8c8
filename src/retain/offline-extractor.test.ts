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

test('a named person in a lower-case sentence is still found', async () => {
  const [fact] = await extract('yesterday i called harry about the trip.');
  assert.ok(fact.entities.some((e) => e.name === 'harry' && e.type === 'person'), JSON.stringify(fact.entities));
});

test('a sentence starting "So" is caused by the one before it', async () => {
  const facts = await extract('The bakery near Anna closed down. So I started baking bread at home.');
  assert.equal(facts.length, 2);
  assert.deepEqual(facts[1].causedBy, [0]);
});
