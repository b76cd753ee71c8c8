// A remembered function answers as the function does, calls it once per argument, and forgets all past its size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { remembered } from './remembered.ts';

test('remembered: one call per argument, undefined results kept too, and the memory starts over past its size', () => {
  const calls: string[] = [];
  const f = remembered((text: string) => {
    calls.push(text);
    return text === 'none' ? undefined : text.length;
  }, 3);
  assert.equal(f('abc'), 3);
  assert.equal(f('abc'), 3);
  assert.equal(f('none'), undefined);
  assert.equal(f('none'), undefined);
  assert.deepEqual(calls, ['abc', 'none']);
  f('x');
  f('yy'); // the fourth argument: the memory starts over with it
  assert.equal(f('abc'), 3);
  assert.deepEqual(calls, ['abc', 'none', 'x', 'yy', 'abc']);
});
