// The observation checks the consolidation benchmark counts: a shared subject, and text that reads as a statement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fact } from '../core/types.ts';
import { grammarCheck, sharesSubject } from './quality.ts';

const fact = (id: string, text: string, entities: string[]): Fact => ({
  id,
  bankId: 'b',
  kind: 'world',
  text,
  occurredStart: null,
  occurredEnd: null,
  mentionedAt: '2024-01-01T00:00:00Z',
  entities,
  source: null,
  speaker: 'Maya',
  metadata: {},
  tags: [],
  stance: null,
  context: null,
  status: 'active',
  validFrom: null,
  validTo: null,
  supersededBy: null,
  supersededAt: null,
  consolidatedAt: null,
  createdAt: '2024-01-01T00:00:00Z',
  updatedAt: '2024-01-01T00:00:00Z',
});
const names = new Map([
  ['maya', 'Maya'],
  ['sam', 'Sam'],
  ['porto', 'Porto'],
  ['ines', 'Ines Costa'],
  ['leeds', 'Leeds'],
]);
const speakers = new Set(['maya', 'sam']);

test('evidence shares a subject: an entity other than the speakers, a compound thing, or one attribute', () => {
  assert.equal(
    sharesSubject([fact('a', 'Maya surfs in Porto.', ['maya', 'porto']), fact('b', 'Porto has great waves.', ['porto'])], names, speakers),
    true,
  );
  assert.equal(
    sharesSubject(
      [fact('a', 'Maya lives in Leeds.', ['maya', 'leeds']), fact('b', 'Maya moved to Porto.', ['maya', 'porto'])],
      names,
      speakers,
    ),
    true,
  );
  assert.equal(
    sharesSubject(
      [fact('a', "Maya's manager is Ines Costa.", ['maya', 'ines']), fact('b', "Maya's favourite food is pastel de nata.", ['maya'])],
      names,
      speakers,
    ),
    false,
    'only the speaker in common',
  );
});

test('grammar: base-form verb after a name, unresolved person, greetings', () => {
  assert.deepEqual(grammarCheck('Maya lives in Leeds.', ['Maya']).problems, []);
  assert.deepEqual(grammarCheck('Maya live in Leeds.', ['Maya']).problems, ['name + base-form verb']);
  assert.deepEqual(grammarCheck('How lucky Melanie am.', ['Melanie']).problems, ['name + base-form verb']);
  assert.deepEqual(grammarCheck('Caroline is proud of you.', ['Caroline']).problems, ['unresolved you/your']);
  assert.deepEqual(grammarCheck('Thanks, Mel! Caroline will go.', ['Caroline']).problems, ['greeting or thanks']);
  assert.deepEqual(grammarCheck('Maya can swim and Maya went home.', ['Maya']).problems, []);
});
