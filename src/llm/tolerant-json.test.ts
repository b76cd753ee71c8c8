// Tolerant JSON recovery: fences, think blocks, prose around the value, trailing commas, and honest failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTolerantJson, removeTrailingCommas } from './tolerant-json.ts';

test('plain JSON parses as is', () => {
  assert.deepEqual(parseTolerantJson('{"a": [1, 2]}'), { ok: true, value: { a: [1, 2] } });
});

test('a fenced block with a language tag and a trailing comma is recovered', () => {
  const reply = 'Here you go:\n```json\n{"facts": [{"text": "Ana moved to Lisbon",},],}\n```\nAnything else?';
  assert.deepEqual(parseTolerantJson(reply), { ok: true, value: { facts: [{ text: 'Ana moved to Lisbon' }] } });
});

test('think blocks and surrounding prose are skipped; the first balanced value wins', () => {
  const reply = '<think>maybe {"wrong": true}</think>Sure! [see below] {"x": "a } inside a string", "y": [1]} trailing {"z": 2}';
  assert.deepEqual(parseTolerantJson(reply), { ok: true, value: { x: 'a } inside a string', y: [1] } });
});

test('commas inside strings are left alone', () => {
  assert.equal(removeTrailingCommas('{"a": "x,]", "b": [1,2,],}'), '{"a": "x,]", "b": [1,2]}');
});

test('a cut-off reply is reported, never patched into a nested value', () => {
  const parsed = parseTolerantJson('{"facts": [{"text": "one"}, {"text": "tw');
  assert.equal(parsed.ok, false);
  assert.match(!parsed.ok ? parsed.error : '', /never closed/);
});

test('no JSON at all and empty replies are reported', () => {
  const prose = parseTolerantJson('I cannot help with that.');
  assert.equal(prose.ok, false);
  assert.match(!prose.ok ? prose.error : '', /no JSON object or array/);
  assert.equal(parseTolerantJson('   ').ok, false);
});

test('broken JSON whose inner object is valid is not mistaken for the answer', () => {
  const parsed = parseTolerantJson('{"outer": oops, "inner": {"a": 1}}');
  assert.equal(parsed.ok, false);
});
