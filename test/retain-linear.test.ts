// Retain time grows linearly with an item's length: one long technical item (paragraphs, lists, code fences,
// numbers) of 400,000 characters costs at most twice as much per character as one of 40,000. The ratio is measured
// in one run, the sizes taking turns and each size's best retain into a fresh bank counting, so a slow or loaded
// machine does not flip it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { repeatedText, technicalText } from '../benchmarks/texts.ts';
import { startServer, type TestServer } from './support/server.ts';

let s: TestServer;
before(async () => {
  s = await startServer();
});
after(async () => {
  await s.close();
});

/** Microseconds per character of retaining one item of this many characters into a fresh bank, or into one already
 * holding an item of 40k characters of the same kind (`after`). */
async function perChar(size: number, seed: number, text = technicalText, after = false): Promise<number> {
  const bank = `linear-${text.name}-${size}-${seed}`;
  await s.engine.createBank({ id: bank });
  if (after) await s.call('POST', `/v1/banks/${bank}/memories`, { items: [{ content: text(40_000, seed + 1000) }] });
  const content = text(size, seed);
  const t0 = performance.now();
  const r = await s.call<{ result: { facts: number } }>('POST', `/v1/banks/${bank}/memories`, { items: [{ content }] });
  const ms = performance.now() - t0;
  assert.equal(r.status, 200);
  // Beside earlier copies most of its sentences are known already: they add no fact.
  assert.ok(r.body.result.facts > (after ? 0 : size / 100), `a long item gives many facts (${r.body.result.facts})`);
  await s.engine.deleteBank(bank);
  return (ms * 1000) / size;
}

/** Each size's best microseconds per character, from the sizes retained in turns after a warm-up: a change in the
 * machine's load meets both, and a best of as many runs of each (a best of more runs is lower by chance alone). */
async function ratio(text: (size: number, seed: number) => string, after = false): Promise<number> {
  for (let seed = 1; seed <= 3; seed++) await perChar(40_000, seed, text, after);
  let small = Infinity;
  let large = Infinity;
  for (let round = 0; round < 3; round++) {
    small = Math.min(small, await perChar(40_000, 10 + round, text, after));
    large = Math.min(large, await perChar(400_000, 20 + round, text, after));
  }
  const r = large / small;
  console.log(`retain (${text.name}): 40k ${small.toFixed(1)} us/char, 400k ${large.toFixed(1)} us/char, ratio ${r.toFixed(2)}`);
  return r;
}

test('retain time per character of a 400k-character item is within 2x of a 40k-character item', async () => {
  const r = await ratio(technicalText);
  assert.ok(r <= 2, `400k characters cost ${r.toFixed(2)}x as much per character as 40k`);
});

test('an item repeating one block (copies of its sentences) is retained in linear time, beside earlier copies', async () => {
  const r = await ratio(repeatedText, true);
  assert.ok(r <= 2, `400k characters of a repeated block cost ${r.toFixed(2)}x as much per character as 40k`);
});

test('semantic links still join a long item to the facts before it and across its own write batches', async () => {
  await s.engine.createBank({ id: 'links' });
  const said = 'Marcus moved the nightly billing export to PostgreSQL 16 on the reporting cluster.';
  await s.call('POST', '/v1/banks/links/memories', { items: [{ content: said }] });
  // Code gives no facts: between the two mentions lie more chunks than one write batch holds, and few facts.
  const code = (i: number): string =>
    [
      '```ts',
      ...Array.from({ length: 40 }, (_, j) => `export const limit${i}_${j} = createLimit({ max: ${i + j}, windowMs: ${1000 * j} });`),
      '```',
    ].join('\n');
  const content = [`${said} It runs at 02:00.`, ...Array.from({ length: 80 }, (_, i) => code(i)), `Again: ${said}`].join('\n\n');
  const r = await s.call<{ result: { factIds: string[] } }>('POST', '/v1/banks/links/memories', { items: [{ content }] });
  assert.equal(r.status, 200);
  const facts = (await s.store.listFacts('links', { limit: 100, offset: 0 })).facts.filter((f) => f.text.includes('billing export'));
  assert.equal(facts.length, 3, JSON.stringify(facts.map((f) => f.text)));
  const [before, first, last] = [...facts].sort((a, b) =>
    a.createdAt === b.createdAt ? (a.source?.start ?? 0) - (b.source?.start ?? 0) : a.createdAt < b.createdAt ? -1 : 1,
  );
  const links = (
    await s.store.graph.linksOf(
      'links',
      facts.map((f) => f.id),
    )
  ).filter((l) => l.type === 'semantic');
  const joined = (a: string, b: string): boolean => links.some((l) => (l.from === a && l.to === b) || (l.from === b && l.to === a));
  assert.ok(joined(first.id, before.id), 'the item links to the fact stored before it');
  assert.ok(joined(last.id, first.id), 'the end of the item links to its start, written in an earlier batch');
});

test('copies of a sentence in one write batch are linked as copies in separate requests are', async () => {
  const said = 'Priya switched the staging deploys from Jenkins to GitHub Actions last week.';
  const semanticPairs = async (bank: string): Promise<number> => {
    const facts = (await s.store.listFacts(bank, { limit: 100, offset: 0 })).facts.filter((f) => f.text.includes('GitHub Actions'));
    assert.equal(facts.length, 3, JSON.stringify(facts.map((f) => f.text)));
    const links = (
      await s.store.graph.linksOf(
        bank,
        facts.map((f) => f.id),
      )
    ).filter((l) => l.type === 'semantic');
    return new Set(links.map((l) => [l.from, l.to].sort().join(' '))).size;
  };
  await s.engine.createBank({ id: 'copies-apart' });
  for (const n of [1, 2, 3]) await s.call('POST', '/v1/banks/copies-apart/memories', { items: [{ content: `${said} (${n})` }] });
  await s.engine.createBank({ id: 'copies-together' });
  await s.call('POST', '/v1/banks/copies-together/memories', { items: [1, 2, 3].map((n) => ({ content: `${said} (${n})` })) });
  await s.engine.createBank({ id: 'copies-in-one' });
  await s.call('POST', '/v1/banks/copies-in-one/memories', { items: [{ content: [1, 2, 3].map((n) => `${said} (${n})`).join('\n\n') }] });
  const apart = await semanticPairs('copies-apart');
  assert.equal(apart, 3, 'each copy links to the two before it');
  assert.equal(await semanticPairs('copies-together'), apart, 'items of one request');
  assert.equal(await semanticPairs('copies-in-one'), apart, 'sentences of one item');
});
