// Locating a model's "verbatim" quote in the chunk: exact, loose (spacing, case, curly quotes, edge
// punctuation), preferring the position after the previous fact, and honest misses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { locateQuote } from './quote-span.ts';

const text = 'I moved to Berlin last June.  So I had to find a new flat\nnear the office. It’s “small” but cheap.';

const slice = (q: string, from?: number): string | null => {
  const span = locateQuote(text, q, from);
  return span ? text.slice(span.start, span.end) : null;
};

test('an exact quote is found where it is', () => {
  assert.deepEqual(locateQuote(text, 'I moved to Berlin last June.'), { start: 0, end: 28 });
});

test('spacing, case and edge punctuation drift still land on the original characters', () => {
  assert.equal(slice('so I had to find a new flat near the office'), 'So I had to find a new flat\nnear the office');
  assert.equal(slice('"It\'s "small" but cheap."'), 'It’s “small” but cheap');
});

test('a repeated quote prefers the occurrence at or after `from`', () => {
  const twice = 'We met. Later we met.';
  assert.deepEqual(locateQuote(twice, 'we met', 0), { start: 14, end: 20 }, 'case-folded match');
  assert.deepEqual(locateQuote(twice, 'We met', 0), { start: 0, end: 6 });
  assert.deepEqual(locateQuote('ab ab', 'ab', 1), { start: 3, end: 5 });
  assert.deepEqual(locateQuote('ab xy', 'ab', 4), { start: 0, end: 2 }, 'falls back to the start');
});

test('a quote that is not in the text, or is empty, gives null', () => {
  assert.equal(locateQuote(text, 'Anna visited her in Berlin'), null);
  assert.equal(locateQuote(text, '   '), null);
  assert.equal(locateQuote(text, '.'), null);
});
