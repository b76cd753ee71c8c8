// Invented ids leave an answer's text and arrays without leaving debris; real ids stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scrubText } from './citations.ts';

const gone = new Set(['fct_0bad0bad0bad', 'obs_deadbeef99']);

test('a bracketed invented id goes whole; real ones stay', () => {
  assert.equal(
    scrubText('Alice lives in Berlin [fct_0bad0bad0bad] [fct_0123456789ab].', gone),
    'Alice lives in Berlin [fct_0123456789ab].',
  );
});

test('an invented id inside a list of ids goes with its comma', () => {
  assert.equal(scrubText('Berlin [fct_0123456789ab, fct_0bad0bad0bad].', gone), 'Berlin [fct_0123456789ab].');
  assert.equal(scrubText('Berlin [obs_deadbeef99; fct_0123456789ab].', gone), 'Berlin [fct_0123456789ab].');
  assert.equal(scrubText('See obs_deadbeef99 for more.', gone), 'See for more.');
});

test('nothing invented: the text is untouched', () => {
  const text = 'Alice [fct_0bad0bad0bad]';
  assert.equal(scrubText(text, new Set()), text);
});
