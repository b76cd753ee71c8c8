import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearsOnAsker, placeStanding } from './standing.ts';

test("standing statements bear on the asker's own requests and on questions naming no one, not on questions about a named person", () => {
  assert.equal(bearsOnAsker('How should I organize my study sessions?', false), true);
  assert.equal(bearsOnAsker('What time is our next meeting scheduled for?', false), true);
  assert.equal(bearsOnAsker('What improvements are in the latest version of the software?', false), true);
  assert.equal(bearsOnAsker('When did Melanie paint a sunrise?', true), false);
  assert.equal(bearsOnAsker('What did Melanie tell me about her trip?', true), true, 'the asker is in it');
});

test('standing statements are placed from the given rank, moved up if already lower, never down', () => {
  const fused = ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({ id, score: 1 - i / 10 }));
  const placed = placeStanding(
    fused,
    [
      { id: 'e', score: 0.9 },
      { id: 'x', score: 0.8 },
    ],
    2,
    (id, score) => ({ id, score }),
  );
  assert.deepEqual(
    placed.map((p) => p.id),
    ['a', 'b', 'e', 'x', 'c', 'd'],
  );
  for (let i = 1; i < placed.length; i++) assert.ok(placed[i - 1].score >= placed[i].score, 'scores stay sorted');
  assert.deepEqual(
    placeStanding(fused, [{ id: 'a', score: 0.9 }], 2, (id, score) => ({ id, score })).map((p) => p.id),
    ['a', 'b', 'c', 'd', 'e'],
  );
});
