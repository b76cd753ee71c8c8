import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unitsOf } from '../retain/units.ts';
import { splitSentences } from '../threads/salience.ts';
import { sentencesOf } from './sentences.ts';

/** Best of three timings of fn, in ms. */
function best(fn: () => void): number {
  let min = Infinity;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

test('sentences of a long text of short sentences take time in proportion to its length (retain and threads)', () => {
  // A 920 KB thread message of one repeated sentence once held the thread for minutes (the segmenter on the whole).
  const small = 'Alice moved to Berlin. '.repeat(1_000);
  const large = 'Alice moved to Berlin. '.repeat(10_000);
  assert.equal([...sentencesOf(large)].length, 10_000, 'every sentence found, none split across windows');
  for (const split of [(t: string) => void [...sentencesOf(t)], (t: string) => void unitsOf(t), (t: string) => void splitSentences(t)]) {
    split(small); // warm
    const perCharSmall = best(() => split(small)) / small.length;
    const perCharLarge = best(() => split(large)) / large.length;
    assert.ok(
      perCharLarge < perCharSmall * 4,
      `per character: ${perCharLarge.toExponential(2)} ms at 230 KB, ${perCharSmall.toExponential(2)} at 23 KB`,
    );
  }
});
