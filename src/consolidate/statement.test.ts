// Single-valued statements: which newer facts replace which older ones, and which never do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyse, parseStatement, replaces } from './statement.ts';

const parse = (t: string) => {
  const s = parseStatement(t);
  assert.ok(s, `"${t}" parses as a single-valued statement`);
  return s;
};

test('a new place of living or work replaces the old one', () => {
  assert.ok(replaces(parse('Alice lives in Paris.'), parse('Alice lives in Berlin.')));
  assert.ok(replaces(parse('Alice moved to Paris in 2023.'), parse('Alice lives in Berlin.')));
  assert.ok(replaces(parse('Bob works at Meta as a designer.'), parse('Bob works at Google.')));
  assert.ok(replaces(parse("Alice's favorite color is blue."), parse("Alice's favorite color is red.")));
  assert.ok(replaces(parse('Alice is married to Tom.'), parse('Alice is married to Sam.')));
});

test('a negation replaces the positive statement with the same value', () => {
  assert.ok(replaces(parse('Alice no longer lives in Berlin.'), parse('Alice lives in Berlin.')));
  assert.ok(replaces(parse("Bob doesn't work at Google anymore."), parse('Bob works at Google.')));
  assert.equal(replaces(parse('Alice no longer lives in Rome.'), parse('Alice lives in Berlin.')), false);
});

test('the same value, another subject or another attribute replaces nothing', () => {
  assert.equal(replaces(parse('Alice lives in Berlin with her cat.'), parse('Alice lives in Berlin.')), false);
  assert.equal(replaces(parse('Carol lives in Paris.'), parse('Alice lives in Berlin.')), false);
  assert.equal(replaces(parse('Alice works at Meta.'), parse('Alice lives in Berlin.')), false);
  assert.equal(replaces(parse("Alice's favorite food is ramen."), parse("Alice's favorite color is red.")), false);
  // Told in the past tense, a statement does not say what holds now.
  assert.equal(replaces(parse('Alice lived in Paris.'), parse('Alice lives in Berlin.')), false);
});

test('many-valued verbs are not statements at all', () => {
  for (const t of [
    'Alice likes pizza.',
    'Caroline went to a support group.',
    'Alice is a teacher.',
    'Alice is interested in art.',
    'Melanie visited Rome.',
  ])
    assert.equal(parseStatement(t), null, t);
});

test('a possessive attribute is its own subject, and a named relative is about the relative', () => {
  const s = (t: string) => parse(t).subject;
  assert.equal(replaces(parse("Maya's favourite food here is pastel de nata."), parse("Maya's manager is Ines Costa.")), false);
  assert.ok(replaces(parse("Maya's new manager at the remote role is Rui Almeida."), parse("Maya's manager is Ines Costa.")));
  assert.equal(s("Maya's sister Chloe lives in Manchester."), 'chloe');
  assert.equal(replaces(parse('Maya moved to Lisbon yesterday.'), parse("Maya's sister Chloe lives in Manchester.")), false);
  assert.equal(s('Actually Maya now lives in Porto again.'), 'maya');
});

test('things are compound noun phrases, not names, times or single words', () => {
  assert.deepEqual(analyse('The LLM-powered search feature improved engagement by 30%.').things, [
    'llm power',
    'power search',
    'search featur',
  ]);
  assert.deepEqual(analyse('LLM search engagement stayed high.').things, ['llm search', 'search engag']);
  assert.deepEqual(analyse('Melanie ran a charity race for mental health last Saturday.').things, ['chariti race', 'mental health']);
  assert.deepEqual(analyse('Hi! Maya just started a new job.').things, ['new job']);
});

test('a frame shared by two answers is not a statement about one thing', () => {
  // Two assistant answers about different topics: neither replaces the other (a hostile probe saw facts drop out).
  for (const t of [
    'This results in a 40% faster build.',
    'It is based in the cache layer.',
    'If you are looking for a faster build, try esbuild.',
    'When the pool runs in production, connections are reused.',
    'The retry logic results in duplicate writes.',
    'Maya looks for a new flat in Lisbon.',
    'You work at the edge of the API.',
  ])
    assert.equal(parseStatement(t), null, t);
  assert.ok(parseStatement('Bob teaches at the university.'));
  assert.ok(parseStatement('Actually, Bob works for Acme now.'));
});

test('"I" and "my" are the speaker: two speakers never replace each other', () => {
  const asSpeaker = (speaker: string) => (subject: string) => (subject.toLowerCase() === 'i' ? speaker : subject.toLowerCase());
  const a = parseStatement('I live in Berlin.', asSpeaker('alice'));
  const b = parseStatement('I live in Paris.', asSpeaker('bob'));
  const a2 = parseStatement('I live in Paris now.', asSpeaker('alice'));
  assert.ok(a && b && a2);
  assert.equal(replaces(b, a), false);
  assert.ok(replaces(a2, a));
  const color = parseStatement('My favorite color is blue.', asSpeaker('alice'));
  const theirs = parseStatement('My favorite color is red.', asSpeaker('bob'));
  assert.ok(color && theirs);
  assert.equal(color.subject, 'alice|color favorit');
  assert.equal(replaces(theirs, color), false);
});
