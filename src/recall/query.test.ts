import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryEntityKeys, withoutNames } from './query.ts';

test('entity keys are the normalized runs of up to four words, skipping runs of stopwords', () => {
  const keys = queryEntityKeys("What did Mary Ann's sister say about New York?");
  for (const k of ['mary', 'mary ann', 'ann', 'sister', 'new york', 'mary ann sister', 'what did mary ann']) assert.ok(keys.includes(k), k);
  assert.ok(!keys.includes('what did'));
  assert.ok(!keys.includes('what'));
  assert.ok(!keys.includes('did'));
  assert.deepEqual(queryEntityKeys('what did you do?'), []);
});

test('names leave the query whole, possessives included, longest match first', () => {
  assert.equal(withoutNames("What is Jon's favorite style of dance?", new Set(['jon'])), 'What is favorite style of dance?');
  assert.equal(withoutNames('Did Mary Ann meet Ann?', new Set(['mary ann'])), 'Did meet Ann?');
  assert.equal(withoutNames('Did Mary Ann meet Ann?', new Set(['mary ann', 'ann'])), 'Did meet');
  assert.equal(withoutNames('Jonathan met Jon', new Set(['jon'])), 'Jonathan met');
  assert.equal(withoutNames('nothing to strip', new Set(['jon'])), 'nothing to strip');
});
