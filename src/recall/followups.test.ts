import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asksQuestion } from './followups.ts';

test('a fact asks a question when it ends with a question mark (quotes and brackets after it allowed)', () => {
  assert.ok(asksQuestion('How long have you been married?'));
  assert.ok(asksQuestion('She asked "what time is it?"'));
  assert.ok(asksQuestion('Any plans for the weekend? '));
  assert.ok(!asksQuestion('Five years already.'));
  assert.ok(!asksQuestion('Who knew? We did it anyway.'));
});
