// The offline observer: one attributed note per message keeps its worthwhile sentences together; what someone
// did, with dates and names, wins over reactions, pep talk and questions back; notes read back as the same units.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../text/tokens.ts';
import { formatNotes, parseNotes } from './notes.ts';
import { OfflineObserver } from './offline-observer.ts';
import type { ThreadMessage } from './types.ts';

let seq = 0;
const message = (name: string, content: string): ThreadMessage => ({
  seq: ++seq,
  id: `m${seq}`,
  bankId: 'b',
  threadId: 't',
  role: name === 'Ana' ? 'user' : 'assistant',
  name,
  content,
  toolCalls: null,
  timestamp: '2024-05-08T10:00:00.000Z',
  tokens: countTokens(content) + 4,
  createdAt: '2024-05-08T10:00:00.000Z',
});

const observe = async (messages: ThreadMessage[], ratio = 0.6): Promise<string> =>
  (
    await new OfflineObserver({ ratio }).observe({
      bankId: 'b',
      threadId: 't',
      messages,
      previous: [],
      currentTask: null,
      instructions: '',
    })
  ).text;

test('what someone did, with its date and names, wins over reactions and pep talk', async () => {
  const text = await observe([
    message('Ana', 'Hey Ben! Last Saturday I adopted a beagle called Pixel from the Lisbon shelter. He turns 2 in June.'),
    message('Ben', "That's so awesome! You're amazing!"),
    message('Ana', "Don't give up on your dreams! Keep pushing!"),
    message('Ben', 'In March I moved to Porto for a job at a robotics startup, and I started rowing on weekends.'),
    message('Ana', 'Wow, how are you finding it?'),
    message('Ben', 'Sounds like a great plan!'),
  ]);
  assert.match(text, /^\[8 May 2024\] /, 'dated');
  assert.match(
    text,
    /Ana: Last Saturday I adopted a beagle called Pixel from the Lisbon shelter\. He turns 2 in June\./,
    'the message stays one note, greeting dropped',
  );
  assert.match(text, /Ben: In March I moved to Porto/);
  assert.doesNotMatch(text, /awesome|give up|Keep pushing|how are you|great plan/);
});

test('notes read back one per speaker turn, including consecutive turns of one speaker', () => {
  const notes = [
    { date: '8 May 2024', speaker: 'Ana', text: 'I adopted Pixel. He is a beagle.' },
    { date: '8 May 2024', speaker: 'Ana', text: 'I start at the clinic on Monday.' },
    { date: '9 May 2024', speaker: 'Ben', text: 'We agreed on Porto.' },
  ];
  const text = formatNotes(notes);
  assert.equal(
    text,
    '[8 May 2024] Ana: I adopted Pixel. He is a beagle. Ana: I start at the clinic on Monday.\n[9 May 2024] Ben: We agreed on Porto.',
  );
  assert.deepEqual(parseNotes(text), notes);
  assert.deepEqual(
    parseNotes('Agreed, Ana. Ben: fine.').map((n) => n.speaker),
    [null, 'Ben'],
    'a name closing a sentence is not a speaker label',
  );
});
