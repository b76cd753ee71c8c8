// Mission terms: what a mission is about, without the verbs every mission starts with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { missionTerms } from './mission.ts';

test('a mission keeps its content terms and drops generic verbs', () => {
  assert.deepEqual(missionTerms('Track project timelines and blockers'), ['project', 'timelines', 'blockers']);
  assert.deepEqual(missionTerms('Find collaboration problems between teams'), ['collaboration', 'problems', 'teams']);
  assert.deepEqual(missionTerms(''), []);
});
