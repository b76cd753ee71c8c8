import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stanceOf } from './stance.ts';

test('standing instructions and preferences are told apart from other sentences', () => {
  assert.equal(stanceOf('Always provide a code example when I ask about async error handling.'), 'instruction');
  assert.equal(stanceOf('Please never suggest paid tools.'), 'instruction');
  assert.equal(stanceOf('Include update release dates whenever I ask about software improvements.'), 'instruction');
  assert.equal(stanceOf('I prefer Android phones due to their flexibility, can you recommend some?'), 'preference');
  assert.equal(stanceOf("I'd rather pay monthly than upfront."), 'preference');
  assert.equal(stanceOf('I prioritized battery life and camera quality over brand prestige.'), 'preference');
  assert.equal(stanceOf('Since I prefer Android for its flexibility, the Snapdragon sounds like a better fit.'), 'preference');
  // Questions and other people's advice are not the speaker's preference.
  assert.equal(stanceOf('Since I am buying on July 5, should I prioritize the Galaxy S23 Ultra?'), null);
  assert.equal(stanceOf('My son Ronald suggested I prioritize gaming performance.'), null);
  assert.equal(stanceOf('I wonder whether I would rather wait for the next model.'), null);
  assert.equal(stanceOf('The build always fails on Mondays.'), null);
  assert.equal(stanceOf('I deployed the app to AWS last week.'), null);
  assert.equal(stanceOf('Socket.io never reconnects after the proxy drops the connection.'), null);
});
