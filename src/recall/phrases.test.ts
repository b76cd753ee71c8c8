import assert from 'node:assert/strict';
import { test } from 'node:test';
import { longestRun, queryRuns } from './phrases.ts';

test('the longest run of the query words a text holds in order, stemmed, counted in content words', () => {
  const q = queryRuns('How many days between my goal to solve 5 problems on parallel and perpendicular lines and the deadline?');
  const run = (text: string): number => longestRun(q.stems, q.content, text);
  // "solve 5 problems on parallel and perpendicular lines": solve, 5? (one character: not counted), problems, parallel, perpendicular, lines.
  assert.equal(run('I aim to solve 5 problems on parallel and perpendicular lines by February 5.'), 5);
  assert.equal(run('Perpendicular lines and parallel problems: solve them.'), 2, 'the same words out of order make short runs');
  assert.equal(run('The weather was fine.'), 0);
  assert.equal(run(''), 0);
  assert.equal(longestRun([], [], 'anything'), 0);
});
