import assert from 'node:assert/strict';
import { test } from 'node:test';
import { askedSet, expansionOf } from './sets.ts';

test('a question whose noun after what, which or how many is plural asks for a set', () => {
  assert.deepEqual(askedSet('What activities does Melanie partake in?'), { words: ['activities'] });
  assert.deepEqual(askedSet('What martial arts has John done?'), { words: ['martial', 'arts'] });
  assert.deepEqual(askedSet('Which cities has Jon visited?'), { words: ['cities'] });
  assert.deepEqual(askedSet('What kind of books does Nate enjoy?'), { words: ['books'] });
  assert.deepEqual(askedSet('In what ways is Caroline participating in the LGBTQ community?'), { words: ['ways'] });
  // A count: a set, but its noun is often a unit, not the set's kind.
  assert.deepEqual(askedSet('How many times has Melanie gone to the beach in 2023?'), { words: [] });
  // One thing asked for, or no noun at all.
  assert.equal(askedSet('What book did Melanie read from Caroline’s suggestion?'), null);
  assert.equal(askedSet('What kind of pot did Mel and her kids make with clay?'), null);
  assert.equal(askedSet('What exciting news did Maria share on 16 June, 2023?'), null);
  assert.equal(askedSet('What did John and the veterans do during the small party?'), null);
  assert.equal(askedSet('What is Caroline’s identity?'), null);
  assert.equal(askedSet('Where has Melanie camped?'), null);
});

test("a set's expansion: its words' nearest words that are near enough, without its own", () => {
  const similar = (word: string) =>
    word === 'instruments'
      ? [
          { word: 'instrument', similarity: 0.8 },
          { word: 'violin', similarity: 0.58 },
          { word: 'politics', similarity: 0.2 },
        ]
      : [{ word: 'instruments', similarity: 0.9 }];
  assert.deepEqual(expansionOf({ words: ['instruments', 'musical'] }, similar), ['instrument', 'violin']);
  assert.deepEqual(expansionOf({ words: [] }, similar), []);
});
