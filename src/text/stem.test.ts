// The remembered stem is the stemmer's, for words seen before and after the memory starts over.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stemmer } from 'stemmer';
import { stem } from './stem.ts';

test('stem gives the Porter stem, the first time and every time after', () => {
  const words = ['deadlines', 'running', 'happily', 'teams', 'connection', 'x', ''];
  for (let round = 0; round < 2; round++) for (const w of words) assert.equal(stem(w), stemmer(w), w);
  for (let i = 0; i < 100_050; i++) stem(`w${i}s`); // past the memory's size: it starts over
  for (const w of words) assert.equal(stem(w), stemmer(w), w);
});
