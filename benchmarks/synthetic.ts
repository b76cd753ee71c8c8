// The synthetic facts of the scale measures (recall-locomo.ts --synthetic, scale.ts): one sentence per item, varied
// names, verbs and things, a speaker, an hour apart from 2020 on. Item j is always the same sentence.
import type { RetainItem } from '../src/retain/types.ts';

const NAMES = [
  'Ava',
  'Ben',
  'Chloe',
  'Dev',
  'Eli',
  'Farah',
  'Gus',
  'Hana',
  'Ivan',
  'Jade',
  'Kofi',
  'Lena',
  'Mateo',
  'Nia',
  'Omar',
  'Priya',
];
const VERBS = ['visited', 'wrote about', 'bought', 'talked about', 'repaired', 'photographed', 'studied', 'planned a trip to'];
const THINGS = [
  'the museum',
  'a red bicycle',
  'Lisbon',
  'the quarterly report',
  'a sourdough starter',
  'the garden shed',
  'jazz piano',
  'Kyoto',
  'a vintage camera',
  'the marathon',
];
const BASE = Date.parse('2020-01-01T00:00:00Z');

/** Items from (inclusive) to (exclusive). */
export function syntheticItems(from: number, to: number): RetainItem[] {
  const items: RetainItem[] = [];
  for (let j = from; j < to; j++)
    items.push({
      content: `${NAMES[j % 16]} ${VERBS[(j * 7) % 8]} ${THINGS[(j * 13) % 10]} with ${NAMES[(j * 5 + 3) % 16]} (note ${j}).`,
      speaker: NAMES[(j * 3) % 16],
      timestamp: new Date(BASE + j * 3_600_000).toISOString(),
    });
  return items;
}
