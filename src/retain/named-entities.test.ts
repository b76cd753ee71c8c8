import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mayName, typedNames } from './named-entities.ts';

test('a first name takes the capitalised surname after it, even one the lexicon does not know', () => {
  assert.deepEqual(typedNames('I loved "Brave" by Sara Bareilles.'), [{ name: 'Sara Bareilles', type: 'person' }]);
});

test('people, places and organizations are typed; a comma or a possessive ends a name', () => {
  assert.deepEqual(typedNames("Anna's brother Tom works at Google in Porto, Ghent and Kyoto."), [
    { name: "Anna's", type: 'person' },
    { name: 'Tom', type: 'person' },
    { name: 'Google', type: 'organization' },
    { name: 'Porto', type: 'place' },
    { name: 'Ghent', type: 'place' },
    { name: 'Kyoto', type: 'place' },
  ]);
});

test('names the lexicon knows are found in a sentence written in lower case', () => {
  assert.deepEqual(typedNames('i met harry yesterday in paris'), [
    { name: 'harry', type: 'person' },
    { name: 'paris', type: 'place' },
  ]);
});

test('a title stays with the name it belongs to', () => {
  assert.deepEqual(typedNames('Dr. John Smith moved to Berlin.'), [
    { name: 'Dr. John Smith', type: 'person' },
    { name: 'Berlin', type: 'place' },
  ]);
});

test('a sentence is tagged only when it may name something', () => {
  // Nothing capitalised past a known opener, no word the lexicon knows as a name.
  assert.equal(mayName("Wow, I'm so happy for you and the kids!"), false);
  assert.equal(mayName('yeah it was a long day at work'), false);
  // Sentences inside one extracted sentence open with a capital too.
  assert.equal(mayName("Thanks! You've been great. So happy for you!"), false);
  assert.equal(mayName('Thanks! Brannoch said hi.'), true);
  // A capitalised word past the opener, an unknown capitalised opener, a name in lower case, a lower-case place phrase.
  assert.equal(mayName('We finally went to the Zylo festival.'), true);
  assert.equal(mayName('Brannoch said hi.'), true);
  assert.equal(mayName('i met harry yesterday'), true);
  assert.equal(mayName('we drove to new york'), true);
});

test('a lower-case place of two words is found', () => {
  assert.deepEqual(typedNames('we drove to new york last week'), [{ name: 'new york', type: 'place' }]);
});

test('a run that starts capitalised and ends in a lower-case word is a tagged word with a common noun, not a name', () => {
  assert.deepEqual(typedNames('Our team is focused on API design this quarter.'), []);
  assert.deepEqual(typedNames('She joined the LGBTQ community in Ghent.'), [{ name: 'Ghent', type: 'place' }]);
  // Names written with capitals end in one, whatever lower-case words they hold.
  assert.deepEqual(typedNames('He flew to Rio de Janeiro for Acme Corp.'), [
    { name: 'Rio de Janeiro', type: 'place' },
    { name: 'Acme Corp', type: 'organization' },
  ]);
});
