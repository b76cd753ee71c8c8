// The offline reflector: later information wins, restatements collapse, distinct events stay, the target holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens } from '../text/tokens.ts';
import { OfflineReflector } from './offline-reflector.ts';
import type { ReflectSource } from './ports.ts';

const source = (id: string, text: string): ReflectSource => ({
  id,
  text,
  tokens: countTokens(text),
  generation: 0,
  firstAt: null,
  lastAt: null,
});

test('later information wins and restatements collapse; distinct events stay', async () => {
  const items = [
    source('o1', '[2 Mar 2024] Sam: My deadline is Friday. I went to Paris for the conference. We use Redis for the cache.'),
    source('o2', '[5 Mar 2024] Sam: I went to Rome for the workshop. We use Redis for the cache layer.'),
    source('o3', '[9 Mar 2024] Sam: My deadline is Monday.'),
  ];
  const { text } = await new OfflineReflector().reflect({
    bankId: 'b',
    recordId: 'r',
    items,
    generation: 1,
    targetTokens: 500,
    instructions: '',
  });
  assert.match(text, /deadline is Monday/);
  assert.doesNotMatch(text, /deadline is Friday/, 'the older deadline is replaced');
  assert.match(text, /Paris/);
  assert.match(text, /Rome/);
  assert.equal((text.match(/Redis/g) ?? []).length, 1, 'the repeated statement is kept once');
  assert.match(text, /Redis for the cache layer/, 'in its later wording');
});

test('the reflection fits its target and keeps dated, attributed lines', async () => {
  const items = Array.from({ length: 8 }, (_, i) =>
    source(
      `o${i}`,
      `[${i + 1} Apr 2024] Lee: We decided to move sprint ${i} review to room ${i + 10}. Kim: I need the budget sheet ${i} by Thursday.`,
    ),
  );
  const input = items.reduce((n, i) => n + i.tokens, 0);
  const { text } = await new OfflineReflector().reflect({
    bankId: 'b',
    recordId: 'r',
    items,
    generation: 1,
    targetTokens: 80,
    instructions: '',
  });
  assert.ok(countTokens(text) <= 90, `${countTokens(text)} tokens for a target of 80`);
  assert.ok(countTokens(text) < input / 2, 'it condenses');
  assert.match(text, /^\[\d+ Apr 2024\] (Lee|Kim): /m);
});
