// The third-person rewriting of conversational sentences: names for pronouns, verbs that agree, generic "you" kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasUnresolvedYou, thirdPersonForm, toThirdPerson } from './person.ts';

const cases: Array<[string, string | null, string | null, string]> = [
  ['I live in Leeds.', 'Maya', null, 'Maya lives in Leeds.'],
  ['I now live in Porto.', 'Maya', null, 'Maya now lives in Porto.'],
  ['I really love climbing on weekends.', 'Maya', null, 'Maya really loves climbing on weekends.'],
  ['how lucky I am', 'Melanie', null, 'how lucky Melanie is'],
  ["I'm learning Portuguese.", 'Maya', null, 'Maya is learning Portuguese.'],
  ['I am learning Portuguese.', 'Maya', null, 'Maya is learning Portuguese.'],
  ["I don't eat meat.", 'Maya', null, "Maya doesn't eat meat."],
  ['I have a dog and I go running.', 'Maya', null, 'Maya has a dog and Maya goes running.'],
  ['I moved to Porto and I try to surf.', 'Maya', null, 'Maya moved to Porto and Maya tries to surf.'],
  ['I can swim but I watch TV.', 'Maya', null, 'Maya can swim but Maya watches TV.'],
  ['My sister Chloe lives in Manchester.', 'Maya', null, "Maya's sister Chloe lives in Manchester."],
  ['Let me know when it works.', 'Maya', null, 'Let Maya know when it works.'],
  ["I'm so proud of you!", 'Caroline', 'Melanie', 'Caroline is so proud of Melanie!'],
  ['You are doing great with your painting.', 'Caroline', 'Melanie', "Melanie is doing great with Melanie's painting."],
  ['You paint every day, right.', 'Caroline', 'Melanie', 'Melanie paints every day, right.'],
  ['Make sure you take care of yourself.', 'Caroline', 'Melanie', 'Make sure Melanie takes care of Melanie.'],
  [
    "I'll let you know, and I hope you really enjoy it.",
    'Caroline',
    'Melanie',
    'Caroline will let Melanie know, and Caroline hopes Melanie really enjoys it.',
  ],
  ['They hired me at a company I like.', 'John', null, 'They hired John at a company John likes.'],
  ['Painting is great for expressing yourself.', 'Caroline', 'Melanie', 'Painting is great for expressing yourself.'],
  ['You never know what happens.', 'Caroline', 'Melanie', 'You never know what happens.'],
  ['Are you okay?', 'Caroline', 'Melanie', 'Are you okay?'],
  ['I went there and I painted a sunset.', 'Melanie', null, 'Melanie went there and Melanie painted a sunset.'],
];

test('first and second person become names, and the verb agrees', () => {
  for (const [input, speaker, addressee, expected] of cases) assert.equal(toThirdPerson(input, { speaker, addressee }), expected, input);
});

test('third person forms', () => {
  assert.deepEqual(['live', 'try', 'watch', 'go', 'have', 'do', 'play', 'fix'].map(thirdPersonForm), [
    'lives',
    'tries',
    'watches',
    'goes',
    'has',
    'does',
    'plays',
    'fixes',
  ]);
});

test('second person left unresolved is found, generic second person is not', () => {
  assert.equal(hasUnresolvedYou('Caroline is proud of you.'), true);
  assert.equal(hasUnresolvedYou('Painting is great for expressing yourself.'), false);
  assert.equal(hasUnresolvedYou('She wrote "you can do it" on the card.'), false);
});
