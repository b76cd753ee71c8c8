// How error messages quote ids and values: whole when short, cut between characters when long.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quoteId, shortened } from './errors.ts';

test('a long id is cut to 60 characters, never inside a surrogate pair, and counted in characters', () => {
  assert.equal(quoteId('doc-1'), "'doc-1'");
  const emoji = `${'a'.repeat(59)}😀${'b'.repeat(100)}`; // 160 characters, 161 UTF-16 code units
  const quoted = quoteId(emoji);
  assert.equal(quoted, `'${'a'.repeat(59)}😀...' (160 characters)`);
  assert.ok(!/[\ud800-\udfff]/u.test(quoted), 'no lone surrogate');
  // 100 characters (emoji) are 200 code units: still quoted whole.
  assert.equal(quoteId('😀'.repeat(100)), `'${'😀'.repeat(100)}'`);
  assert.equal(quoteId('x'.repeat(101)), `'${'x'.repeat(60)}...' (101 characters)`);
});

test('a value shown in a message is cut between characters', () => {
  assert.equal(shortened('short', 10), 'short');
  assert.equal(shortened('😀'.repeat(10), 10), '😀'.repeat(10), '10 characters, 20 code units: whole');
  assert.equal(shortened(`${'m'.repeat(99)}${'🎉'.repeat(5)}`, 100), `${'m'.repeat(99)}🎉...`);
  assert.equal(shortened('x'.repeat(1_000_000), 3), 'xxx...');
});
