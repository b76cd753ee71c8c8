import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFirstPerson } from './asker.ts';

test('first-person questions about the asker, but not summary requests, lower the agent turns', () => {
  assert.equal(isFirstPerson('What deadline did I set for the deployment?'), true);
  assert.equal(isFirstPerson('How should I store my tokens?'), true);
  assert.equal(isFirstPerson('Which ways speed up the nightly build?'), false);
  // A summary covers what the agent explained as well.
  assert.equal(isFirstPerson('Can you give me a summary of the main steps of my green card application?'), false);
  assert.equal(isFirstPerson('Summarize how my grocery habits developed'), false);
});
