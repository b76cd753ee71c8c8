// Temporal links follow the telling across retain calls: a conversation appended one turn per call (how agents
// retain) chains each turn's first fact to the previous turn's last one, as a whole conversation retained at once
// does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FactLink } from '../src/core/types.ts';
import { openEngine, type TestEngine } from './support/consolidation.ts';

const TURNS = [
  { content: 'I started a pottery class in Lisbon.', speaker: 'Maya' },
  { content: 'Ok!', speaker: 'Leo' },
  { content: 'The teacher Rosa showed me how to center clay.', speaker: 'Maya' },
  { content: 'My brother Tiago sold his first painting in Porto.', speaker: 'Leo' },
].map((t, i) => ({ ...t, documentId: 'chat-1', timestamp: new Date(Date.UTC(2024, 4, 1, 10, i)).toISOString() }));

let t: TestEngine;
before(async () => {
  t = await openEngine();
  await t.engine.createBank({ id: 'whole' });
  await t.engine.createBank({ id: 'turns' });
});
after(async () => {
  await t.close();
});

/** The temporal links of a bank, as "earlier text | later text" pairs (links are stored without direction). */
async function chain(bank: string): Promise<string[]> {
  const facts = (await t.store.listFacts(bank, { kinds: ['world', 'experience'], limit: 100, offset: 0 })).facts;
  const order = new Map(facts.map((f) => [f.id, TURNS.findIndex((turn) => turn.timestamp === f.mentionedAt)]));
  const text = new Map(facts.map((f) => [f.id, f.text]));
  const links: FactLink[] = await t.store.graph.linksOf(
    bank,
    facts.map((f) => f.id),
  );
  const pairs = new Set<string>();
  for (const l of links) {
    if (l.type !== 'temporal') continue;
    const [a, b] = (order.get(l.from) ?? 0) <= (order.get(l.to) ?? 0) ? [l.from, l.to] : [l.to, l.from];
    pairs.add(`${text.get(a)} | ${text.get(b)}`);
  }
  return [...pairs].sort();
}

test('a conversation appended turn by turn is chained like one retained whole', async () => {
  await t.engine.retain('whole', { items: TURNS, documentMode: 'append' });
  for (const turn of TURNS) await t.engine.retain('turns', { items: [turn], documentMode: 'append' });
  const whole = await chain('whole');
  assert.equal(whole.length, TURNS.length - 1, `one link between each two turns: ${JSON.stringify(whole)}`);
  assert.deepEqual(await chain('turns'), whole);
});
