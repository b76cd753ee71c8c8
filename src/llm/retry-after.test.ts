// Retry-After parsing: delta seconds, HTTP dates, the millisecond variant, and junk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfter, retryAfterFromHeaders } from './retry-after.ts';

test('delta seconds become milliseconds', () => {
  assert.equal(parseRetryAfter('2'), 2000);
  assert.equal(parseRetryAfter(' 0.5 '), 500);
});

test('an HTTP date is measured from now; past dates mean no wait', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');
  assert.equal(parseRetryAfter('Sat, 01 Mar 2025 12:00:07 GMT', now), 7000);
  assert.equal(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', now), 0);
});

test('junk and absence give undefined', () => {
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(retryAfterFromHeaders(undefined), undefined);
});

test('retry-after-ms wins over retry-after', () => {
  const headers = new Headers({ 'retry-after': '5', 'retry-after-ms': '1500' });
  assert.equal(retryAfterFromHeaders(headers), 1500);
  assert.equal(retryAfterFromHeaders(new Headers({ 'retry-after': '3' })), 3000);
});
