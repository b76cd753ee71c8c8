import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimeExpressions } from './time-expressions.ts';

const ref = new Date('2023-05-08T13:56:00Z');

test('"last June" said in May 2023 is the whole of June 2022', () => {
  const [r] = parseTimeExpressions('What did Alice do last June?', ref);
  assert.equal(r.start, '2022-06-01T00:00:00.000Z');
  assert.equal(r.end, '2022-06-30T23:59:59.999Z');
});

test('"yesterday" is the day before the reference', () => {
  const [r] = parseTimeExpressions('I went to the support group yesterday.', ref);
  assert.equal(r.start, '2023-05-07T00:00:00.000Z');
  assert.equal(r.end, '2023-05-07T23:59:59.999Z');
});

test('"in 2022" is the whole year and "two weeks ago" a week around that day', () => {
  const [y] = parseTimeExpressions('We met in 2022.', ref);
  assert.equal(y.start, '2022-01-01T00:00:00.000Z');
  const [w] = parseTimeExpressions('two weeks ago we talked', ref);
  assert.ok(Date.parse(w.start) < Date.parse('2023-04-24T00:00:00Z') && Date.parse(w.end) > Date.parse('2023-04-25T00:00:00Z'));
});

test('text without a time expression gives no range', () => {
  assert.deepEqual(parseTimeExpressions('Alice likes hiking with her dog.', ref), []);
});
