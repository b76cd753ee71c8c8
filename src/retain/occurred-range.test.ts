// Dates an LLM writes become the period they name; words are read against the item's timestamp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDateLike, occurredRange } from './occurred-range.ts';

const ref = new Date('2024-03-10T09:00:00Z');

test('a year, a month and a day are widened to the whole period; an instant stays an instant', () => {
  assert.deepEqual(occurredRange('2022', null, null, ref), { start: '2022-01-01T00:00:00.000Z', end: '2022-12-31T23:59:59.999Z' });
  assert.deepEqual(occurredRange('2024-02', null, null, ref), { start: '2024-02-01T00:00:00.000Z', end: '2024-02-29T23:59:59.999Z' });
  assert.deepEqual(occurredRange('2023-08-12', '2023-08-14', null, ref), {
    start: '2023-08-12T00:00:00.000Z',
    end: '2023-08-14T23:59:59.999Z',
  });
  assert.deepEqual(occurredRange('2023-08-12T18:30:00Z', null, null, ref), {
    start: '2023-08-12T18:30:00.000Z',
    end: '2023-08-12T18:30:00.000Z',
  });
});

test('a reversed range is put in order; written dates beat words', () => {
  assert.deepEqual(occurredRange('2023-09', '2023-07', 'yesterday', ref), {
    start: '2023-07-01T00:00:00.000Z',
    end: '2023-09-30T23:59:59.999Z',
  });
});

test('without dates, the words are read from the reference; nothing known stays null', () => {
  assert.deepEqual(occurredRange(null, null, 'yesterday', ref), { start: '2024-03-09T00:00:00.000Z', end: '2024-03-09T23:59:59.999Z' });
  assert.deepEqual(occurredRange(null, undefined, 'at some point', ref), { start: null, end: null });
});

test('what counts as a date', () => {
  for (const ok of ['2024', '2024-02', '2024-02-29', '2024-02-29T10:00:00Z']) assert.ok(isDateLike(ok), ok);
  for (const bad of ['2024-13', '2023-02-29', 'last June', '']) assert.ok(!isDateLike(bad), bad);
});

test('a model\'s bare "when" takes its tense from the fact\'s words: a plan is the next occurrence, the past the last', () => {
  assert.deepEqual(occurredRange(null, null, 'September 14th', ref, 'The wedding is planned for September 14th.'), {
    start: '2024-09-14T00:00:00.000Z',
    end: '2024-09-14T23:59:59.999Z',
  });
  assert.deepEqual(occurredRange(null, null, 'March 12th', ref, 'The concert was on March 12th.'), {
    start: '2023-03-12T00:00:00.000Z',
    end: '2023-03-12T23:59:59.999Z',
  });
  assert.equal(
    occurredRange(null, null, 'on Friday', ref, 'Maya will fly to Oslo.').start,
    '2024-03-15T00:00:00.000Z',
    'the expression need not be in the words',
  );
});

test('written dates in the years 0000 to 0099 keep their year', () => {
  assert.deepEqual(occurredRange('0099', null, null, ref), { start: '0099-01-01T00:00:00.000Z', end: '0099-12-31T23:59:59.999Z' });
  assert.deepEqual(occurredRange('0000-02', null, null, ref), { start: '0000-02-01T00:00:00.000Z', end: '0000-02-29T23:59:59.999Z' });
  assert.deepEqual(occurredRange('0099-03-04', null, null, ref), { start: '0099-03-04T00:00:00.000Z', end: '0099-03-04T23:59:59.999Z' });
  assert.deepEqual(occurredRange('0001-12', null, null, ref), { start: '0001-12-01T00:00:00.000Z', end: '0001-12-31T23:59:59.999Z' });
  assert.ok(!isDateLike('0099-02-29'), '0099 is not a leap year (1999 neither, but 0096-02-29 is one)');
  assert.ok(isDateLike('0096-02-29'));
});
