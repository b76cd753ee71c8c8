import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitToTokens } from './budget.ts';
import { countTokens } from '../text/tokens.ts';

const texts = ['Alice moved to Lisbon in June.', 'Bob adopted a greyhound named Comet.', 'The team shipped the release on Friday.'];
const items = texts.map((text, i) => ({ id: `f${i}`, text }));

test('keeps results in order while they fit, counting real tokens', () => {
  const first = countTokens(texts[0]);
  const second = countTokens(texts[1]);
  const out = fitToTokens(items, first + second);
  assert.deepEqual(
    out.kept.map((k) => k.id),
    ['f0', 'f1'],
  );
  assert.equal(out.tokens, first + second);
  assert.equal(out.dropped, 1);
  assert.deepEqual(
    out.kept.map((k) => k.tokens),
    [first, second],
  );
});

test('the first result that does not fit ends the list (no lower-ranked result slips in)', () => {
  const long = { id: 'long', text: 'word '.repeat(200) };
  const short = { id: 'short', text: 'hi' };
  const out = fitToTokens([items[0], long, short], countTokens(texts[0]) + 10);
  assert.deepEqual(
    out.kept.map((k) => k.id),
    ['f0'],
  );
});

test('everything fits in a large budget; nothing fits in zero', () => {
  assert.equal(fitToTokens(items, 10_000).kept.length, 3);
  assert.equal(fitToTokens(items, 0).kept.length, 0);
});
