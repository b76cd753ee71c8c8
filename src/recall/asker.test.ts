import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Entity, Fact } from '../core/index.ts';
import { aboutListener, isFirstPerson, lowerOtherSpeakers, namedSpeaker } from './asker.ts';

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

test("the named speaker's questions and remarks to the other side count as the other side's", () => {
  const names = ['Melanie', 'Mel'];
  assert.equal(aboutListener('Have you found any activities that make you feel the same way?', names), true);
  assert.equal(aboutListener('Love seeing your dedication to helping others.', names), true);
  assert.equal(aboutListener('What gave the idea?', names), true);
  // About the speaker: first person, or the speaker's name written in place of "I".
  assert.equal(aboutListener('Melanie is off to go swimming with the kids.', names), false);
  assert.equal(aboutListener("You know Melanie's kids love it.", names), false);
  assert.equal(aboutListener('We love painting together, you should join!', names), false);
  assert.equal(aboutListener('Should I get a dog?', names), false);
  assert.equal(aboutListener('That sounds great.', names), false);

  const melanie = { id: 'e1', name: 'Melanie', aliases: ['Mel'], type: 'person' } as Entity;
  const fact = (id: string, speaker: string, text: string): Fact => ({ id, speaker, text }) as Fact;
  const facts = new Map(
    [
      fact('ask', 'Melanie', 'Any specific projects or activities you are looking forward to?'),
      fact('own', 'Melanie', 'Melanie signed up for a pottery class.'),
      fact('other', 'Caroline', 'Caroline joined an activist group.'),
    ].map((f) => [f.id, f]),
  );
  const candidates = ['ask', 'other', 'own'].map((id, i) => ({ id, score: 1 - i * 0.2 }));
  assert.deepEqual(
    lowerOtherSpeakers(candidates, facts, melanie, 0.5).map((c) => [c.id, Math.round(c.score * 100) / 100]),
    [
      ['own', 0.6],
      ['ask', 0.5],
      ['other', 0.4],
    ],
  );
});
