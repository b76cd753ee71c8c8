// The offline working-memory updater keeps one current value per profile attribute: a later statement replaces
// the earlier ones, a statement that also held other facts stays marked as previous, and statements that only
// look alike (a description of the manager, a child's age, another favourite) replace nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_WORKING_MEMORY_TEMPLATE } from './settings.ts';
import type { ThreadMessage } from './types.ts';
import { OfflineWorkingMemoryUpdater } from './working-memory.ts';

async function profileAfter(...said: string[]): Promise<string[]> {
  const updater = new OfflineWorkingMemoryUpdater();
  let document = DEFAULT_WORKING_MEMORY_TEMPLATE;
  for (const [i, content] of said.entries()) {
    const message: ThreadMessage = {
      seq: i + 1,
      id: `m${i}`,
      bankId: 'b',
      threadId: 't',
      role: 'user',
      name: null,
      content,
      toolCalls: null,
      timestamp: '2024-03-10T09:00:00.000Z',
      tokens: 10,
      createdAt: '2024-03-10T09:00:00.000Z',
    };
    document = (
      await updater.update({ bankId: 'b', document, template: DEFAULT_WORKING_MEMORY_TEMPLATE, messages: [message], maxTokens: 1000 })
    ).document;
  }
  return document
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2));
}

test('a statement that also held other facts stays, marked as previous', async () => {
  assert.deepEqual(await profileAfter('I live in Leeds and work at the BBC.', 'I moved to Porto.'), [
    'Previously: I live in Leeds and work at the BBC.',
    'I moved to Porto.',
  ]);
  assert.deepEqual(
    await profileAfter('I live in Leeds and work at the BBC.', 'I moved to Porto.', 'I work for Farfetch now.'),
    ['Previously: I live in Leeds and work at the BBC.', 'I moved to Porto.', 'I work for Farfetch now.'],
    'a bullet marked previous is not marked again',
  );
});

test('statements that only look like the same attribute replace nothing', async () => {
  const kept = await profileAfter(
    'My manager is Sam Hale.',
    'My manager is strict about deadlines.',
    "I'm 34 years old.",
    'My son is 5 years old.',
    'My favourite band is Blur.',
    'My favourite city is Kyoto.',
    'I live in Leeds.',
    'I live in Leeds.',
  );
  assert.deepEqual(kept, [
    'My manager is Sam Hale.',
    "I'm 34 years old.",
    'My son is 5 years old.',
    'I live in Leeds.',
    'My favourite band is Blur.',
    'My favourite city is Kyoto.',
  ]);
});
