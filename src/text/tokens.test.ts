// Token counts: exact for ordinary text, and for very long runs without spaces (which the BPE merges in time
// quadratic in their length) counted in slices, over by at most one token per 256 characters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens } from './tokens.ts';

test('ordinary text is counted exactly', () => {
  for (const text of [
    '',
    'Alice moved to Berlin last June.',
    'Alice moved to Berlin. '.repeat(2000),
    `${'x'.repeat(255)} and ${'-'.repeat(200)} ${' '.repeat(100)}.`,
  ])
    assert.equal(countTokens(text), encode(text).length, text.slice(0, 40));
});

test('long runs are counted in slices, over by at most one token per 256 characters', () => {
  // cl100k_base writes a run of 'z' as one token per two letters.
  for (const n of [256, 1000, 200_000]) {
    const counted = countTokens(`a ${'z'.repeat(n)} b`);
    const exact = 2 + n / 2;
    assert.ok(counted >= exact && counted <= exact + Math.ceil(n / 256), `${n}: ${counted} tokens, exactly ${exact}`);
  }
  const mixed = `${'Alice moved to Berlin. '.repeat(100)}${'\u0000'.repeat(10_000)}${'é'.repeat(5000)} end`;
  assert.ok(countTokens(mixed) >= encode(`${'Alice moved to Berlin. '.repeat(100)}`).length);
});
