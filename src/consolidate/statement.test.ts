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
