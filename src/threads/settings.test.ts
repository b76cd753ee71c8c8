// Thread memory settings: defaults, relative values turned into tokens, layers merged, clashes refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CairnError } from '../core/errors.ts';
import { DEFAULT_THREAD_SETTINGS, mergeSettings, parseThreadSettings, resolveSettings } from './settings.ts';

const refused = (input: unknown, pattern: RegExp): void => {
  assert.throws(
    () => resolveSettings(parseThreadSettings(input, 'test'), 'test'),
    (e: unknown) => e instanceof CairnError && e.status === 400 && pattern.test(e.message),
    `${JSON.stringify(input)} should be refused with ${pattern}`,
  );
};

test('defaults resolve into absolute token counts', () => {
  const s = resolveSettings({}, 'defaults');
  assert.equal(s.messageTokens, DEFAULT_THREAD_SETTINGS.messageTokens);
  assert.equal(s.bufferTokens, Math.round(0.25 * s.messageTokens));
  assert.equal(s.keepTokens, Math.round(0.2 * s.messageTokens));
  assert.equal(s.blockAfterTokens, Math.round(1.2 * s.messageTokens));
  assert.equal(s.reflectionBufferTokens, Math.round(0.5 * s.observationTokens));
});

test('fractions, absolute counts and "off" values', () => {
  const s = resolveSettings({ messageTokens: 1000, bufferTokens: 150, bufferActivation: 400, blockAfter: 1800 }, 't');
  assert.deepEqual([s.bufferTokens, s.keepTokens, s.blockAfterTokens], [150, 400, 1800]);
  const off = resolveSettings(
    { messageTokens: 1000, bufferTokens: false, observationTokens: 0, memoryTokenBudget: 0, messageTokenBudget: 0 },
    't',
  );
  assert.deepEqual([off.bufferTokens, off.keepTokens, off.blockAfterTokens, off.reflectionBufferTokens], [0, 0, 1000, 0]);
});

test('layers merge, working memory field by field', () => {
  const merged = mergeSettings(
    { messageTokens: 500, workingMemory: { maxTokens: 100, template: 'T' } },
    { workingMemory: { maxTokens: 50 } },
  );
  assert.deepEqual(merged, { messageTokens: 500, workingMemory: { maxTokens: 50, template: 'T' } });
});

test('clashing or malformed settings are refused with what to change', () => {
  refused({ messageTokens: 100, bufferTokens: 100 }, /bufferTokens \(100, i.e. 100 tokens\) must be below messageTokens \(100\)/);
  refused({ messageTokens: 100, bufferActivation: 100 }, /bufferActivation/);
  refused({ messageTokens: 100, blockAfter: 90 }, /blockAfter \(90\) must resolve above messageTokens/);
  refused({ messageTokens: 100, messageTokenBudget: 99 }, /messageTokenBudget \(99\) is below messageTokens \(100\)/);
  refused({ observationTokens: 100, reflectionBlockAfter: 50 }, /reflectionBlockAfter/);
  refused({ reflectionConsolidationThreshold: 1 }, /at least 2/);
  refused({ messageTokens: 2.5 }, /whole number/);
  // A whole number too large to compute with is told the maximum, not that it is not whole.
  refused({ messageTokens: 1e308 }, /messageTokens must be at most 1000000000$/);
  refused({ bufferTokens: 1e308 }, /bufferTokens must be at most 1000000000$/);
  refused({ workingMemory: { maxTokens: 2 ** 53 } }, /workingMemory\.maxTokens must be at most 1000000000$/);
  refused({ scope: 'everywhere' }, /scope/);
  refused({ workingMemory: { size: 3 } }, /size/);
});

test('the raw-tail budget follows messageTokens unless set, so raising the threshold alone is accepted', () => {
  const d = resolveSettings({}, 'defaults');
  assert.equal(d.messageTokenBudget, d.blockAfterTokens);
  assert.ok(d.memoryTokenBudget + d.messageTokenBudget <= 3000, 'the default context stays within 3,000 tokens');
  const raised = resolveSettings({ messageTokens: 5000 }, 't');
  assert.equal(raised.messageTokenBudget, Math.round(1.2 * 5000));
  assert.equal(resolveSettings({ messageTokens: 5000, bufferTokens: false }, 't').messageTokenBudget, 5000);
  assert.equal(resolveSettings({ messageTokens: 5000, messageTokenBudget: 0 }, 't').messageTokenBudget, 0);
});
