import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entity, Fact } from '../core/index.ts';
import { isFirstPerson, lowerOtherSpeakers, namedSpeaker } from './asker.ts';

test('first-person questions about the asker, but not summary requests, lower the agent turns', () => {
  assert.equal(isFirstPerson('What deadline did I set for the deployment?'), true);
  assert.equal(isFirstPerson('How should I store my tokens?'), true);
  assert.equal(isFirstPerson('Which ways speed up the nightly build?'), false);
  // A summary covers what the agent explained as well.
  assert.equal(isFirstPerson('Can you give me a summary of the main steps of my green card application?'), false);
  assert.equal(isFirstPerson('Summarize how my grocery habits developed'), false);
});

test('a question naming one speaker of the bank lowers the other speakers, never facts of no speaker', () => {
  const entity = (id: string, name: string, type: string | null = 'person', aliases: string[] = []): Entity =>
    ({ id, name, aliases, type }) as Entity;
  const fact = (id: string, speaker: string | null): Fact => ({ id, speaker }) as Fact;
  const facts = new Map([fact('a', 'Caroline'), fact('b', 'Melanie'), fact('c', null), fact('d', 'melanie')].map((f) => [f.id, f]));
  const melanie = entity('e1', 'Melanie', 'person', ['Mel']);
  const caroline = entity('e2', 'Caroline');

  assert.equal(namedSpeaker([melanie], facts.values())?.id, 'e1');
  // Naming both speakers, a non-person, or a person who never speaks: no one to prefer.
  assert.equal(namedSpeaker([melanie, caroline], facts.values()), null);
  assert.equal(namedSpeaker([entity('e3', 'Melanie', 'organization')], facts.values()), null);
  assert.equal(namedSpeaker([entity('e4', 'Anna')], facts.values()), null);
  // An alias is the speaker's name too.
  assert.equal(namedSpeaker([entity('e5', 'Melanie Smith', 'person', ['melanie'])], facts.values())?.id, 'e5');

  const candidates = ['a', 'b', 'c', 'd'].map((id, i) => ({ id, score: 1 - i * 0.1 }));
  const lowered = lowerOtherSpeakers(candidates, facts, melanie, 0.5);
  assert.deepEqual(
    lowered.map((c) => [c.id, Math.round(c.score * 100) / 100]),
    [
      ['b', 0.9],
      ['c', 0.8],
      ['d', 0.7],
      ['a', 0.5],
    ],
  );
  assert.equal(lowerOtherSpeakers(candidates, facts, melanie, 1), candidates);
});
