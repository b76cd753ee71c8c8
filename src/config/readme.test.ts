// The README's configuration table and the configuration agree: every variable loadConfig reads has a row, and every
// variable a row names is read. A row may name a family with placeholders: `CAIRN_<OP>_LLM_<NAME>`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIG_VARIABLES } from './index.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The variable names (or patterns) in the first column of the table under "## Configuration". */
function documented(): string[] {
  const start = README.indexOf('\n## Configuration');
  assert.ok(start >= 0, 'the README has a Configuration section');
  const end = README.indexOf('\n## ', start + 1);
  const rows = README.slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]));
}

/** A name, or a family with <PLACEHOLDERS>; anything else (`CAIRN_X_*`) matches nothing and is reported. */
const matcher = (name: string): RegExp =>
  /^[A-Z0-9_]*(?:<[A-Z]+>[A-Z0-9_]*)*$/.test(name) ? new RegExp(`^${name.replace(/<[A-Z]+>/g, '[A-Z0-9_]+')}$`) : /^(?!)/;

test('every variable the configuration reads is in the README table', () => {
  const patterns = documented().map(matcher);
  const missing = CONFIG_VARIABLES.filter((name) => !patterns.some((p) => p.test(name)));
  assert.deepEqual(missing, [], 'variables without a row');
});

test('every variable in the README table is read by the configuration', () => {
  const unknown = documented().filter((name) => !CONFIG_VARIABLES.some((v) => matcher(name).test(v)));
  assert.deepEqual(unknown, [], 'rows naming no variable');
});
