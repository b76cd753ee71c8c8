import assert from 'node:assert/strict';
import { test } from 'node:test';
import { factContext, passageNames } from './context.ts';
import type { ExtractedFact } from './extractor.ts';

const fact = (text: string, extra: Partial<ExtractedFact> = {}): ExtractedFact => ({
  text,
  kind: 'world',
  start: 0,
  end: text.length,
  occurredStart: null,
  occurredEnd: null,
  entities: [],
  causedBy: [],
  ...extra,
});

test("a fact's context: its heading, its passage's names and identifiers, the sentence before it, the item's context", () => {
  const facts = [
    fact('We moved the nightly build to the shared runner.', {
      entities: [{ name: 'GitHub Actions', type: null }],
      section: 'Nightly build',
    }),
    fact('It now takes 40 minutes.', { terms: ['webpack@5.90'], section: 'Nightly build' }),
  ];
  const names = passageNames(facts);
  assert.deepEqual(names, ['GitHub Actions', 'webpack@5.90']);
  const context = factContext({ context: 'a chat about CI' }, facts, 1, names);
  assert.equal(
    context,
    'Nightly build · GitHub Actions · webpack@5.90 · We moved the nightly build to the shared runner. · a chat about CI',
  );
  // What the text already says is not repeated; nothing to add is null.
  assert.equal(factContext({ context: null }, [fact('GitHub Actions runs it.')], 0, ['GitHub Actions']), null);
});

test("a long item context cannot crowd out the fact's own context, and the whole stays bounded", () => {
  const facts = [fact('It fails once in five runs.', { section: 'Flaky Cypress suite' })];
  const context = factContext({ context: 'x'.repeat(5000) }, facts, 0, []) ?? '';
  assert.ok(context.startsWith('Flaky Cypress suite'));
  assert.ok(context.length <= 600);
  const many = Array.from({ length: 200 }, (_, i) => `name${i}`);
  assert.ok((factContext({ context: null }, facts, 0, many) ?? '').length <= 600);
});
