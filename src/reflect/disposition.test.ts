// The bank's disposition: read leniently (missing traits are 3, others rounded into 1..5), one rule per trait.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispositionOf, dispositionRules } from './disposition.ts';

test('missing, out of range and non-numeric traits', () => {
  assert.deepEqual(dispositionOf({}), { skepticism: 3, literalism: 3, empathy: 3 });
  assert.deepEqual(dispositionOf({ disposition: { skepticism: 9, literalism: 0.4, empathy: '5' as unknown as number } }), {
    skepticism: 5,
    literalism: 1,
    empathy: 3,
  });
});

test('each level of each trait gives its own rule', () => {
  const low = dispositionRules({ skepticism: 1, literalism: 1, empathy: 1 });
  const mid = dispositionRules({ skepticism: 3, literalism: 3, empathy: 3 });
  const high = dispositionRules({ skepticism: 5, literalism: 5, empathy: 5 });
  assert.match(low.join(' '), /face value.*generously.*neutral/);
  assert.match(high.join(' '), /skeptical.*literal.*warm/i);
  for (let i = 0; i < 3; i++) assert.equal(new Set([low[i], mid[i], high[i]]).size, 3);
});
