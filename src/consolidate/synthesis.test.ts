// Extractive observation text: only the evidence's own sentences, a change told newest first and then in time
// order, the newest and most relevant facts shown first, interjections and unnamed "you" left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fact } from '../core/types.ts';
import { synthesize } from './synthesis.ts';

const fact = (id: string, text: string, at: string): Fact => ({
  id,
  bankId: 'b',
  kind: 'world',
  text,
  occurredStart: null,
  occurredEnd: null,
  mentionedAt: at,
  entities: [],
  source: null,
  speaker: null,
  metadata: {},
  tags: [],
  stance: null,
  context: null,
  status: 'active',
  validFrom: at,
  validTo: null,
  supersededBy: null,
  supersededAt: null,
  consolidatedAt: null,
  createdAt: at,
  updatedAt: at,
});

test('a changed story leads with the newest state, then tells the earlier ones in time order, whatever order they come in', () => {
  const a = fact('a', 'The feature lifted engagement by 30%.', '2024-01-10T00:00:00Z');
  const b = fact('b', 'The API costs ran 5x over budget.', '2024-02-12T00:00:00Z');
  const c = fact('c', 'The team switched to a cheaper model.', '2024-03-20T00:00:00Z');
  const text = synthesize([
    { fact: c, role: 'contradicts', weight: 1 },
    { fact: a, role: 'supports', weight: 1 },
    { fact: b, role: 'contradicts', weight: 1 },
  ]);
  assert.equal(
    text,
    'The team switched to a cheaper model (2024-03-20). Before that: the feature lifted engagement by 30% (2024-01-10); then the API costs ran 5x over budget (2024-02-12).',
  );
});

test('without changes it shows the weightiest facts, the must-show one included, in time order, and nothing else', () => {
  const facts = ['Ann paints landscapes.', 'Ann sold a painting.', 'Ann teaches a painting class.', 'Ann bought new brushes.'].map((t, i) =>
    fact(`f${i}`, t, `2024-0${i + 1}-01T00:00:00Z`),
  );
  const text = synthesize(
    facts.map((f, i) => ({ fact: f, role: 'supports' as const, weight: [0.9, 0.1, 0.8, 0.2][i] })),
    { maxSentences: 3, mustShow: 'f3' },
  );
  assert.equal(text, 'Ann paints landscapes. Ann teaches a painting class. Ann bought new brushes.');
  for (const sentence of text.split(/(?<=\.) /))
    assert.ok(
      facts.some((f) => f.text === sentence),
      `"${sentence}" is an evidence sentence`,
    );
});

test('opening interjections are not shown, nor a sentence saying "you" to someone unnamed while others are left', () => {
  const a = fact('a', 'Hi! Maya just started a new job at a design studio.', '2024-01-01T00:00:00Z');
  const b = fact('b', 'Wow, Maya is proud of you for the design studio job!', '2024-01-02T00:00:00Z');
  assert.equal(
    synthesize([
      { fact: a, role: 'supports', weight: 1 },
      { fact: b, role: 'supports', weight: 1 },
    ]),
    'Maya just started a new job at a design studio.',
  );
});
