// An entity's newest facts of one kind are found from the kind's side when that is cheaper (store.ts,
// newestOfRareKind): the answer must be the one the entity's own facts give, whether the bank's newest facts of the
// kind hold enough of the entity's, too few (the entity's walk takes over), or the kind has fewer facts than looked at.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openEngine, type TestEngine } from '../../../test/support/consolidation.ts';

const BANK = 'newest-kind';
let t: TestEngine;

before(async () => {
  t = await openEngine();
  await t.engine.createBank({ id: BANK });
});
after(async () => t.close());

/** The entity's newest active facts of a kind as its own index gives them (the reference). */
function byEntityWalk(entityId: string, kind: string, limit: number): string[] {
  return t.store.db
    .prepare(
      `SELECT f.id FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
       WHERE fe.entity_id = ? AND f.bank_id = ? AND f.kind = ? AND f.status = 'active' ORDER BY f.id DESC LIMIT ?`,
    )
    .pluck()
    .all(entityId, BANK, kind, limit) as string[];
}

const zelda = (): string => t.store.db.prepare("SELECT id FROM entities WHERE bank_id = ? AND name = 'Zelda'").pluck().get(BANK) as string;
const kindOf = (id: string): string => t.store.db.prepare('SELECT kind FROM facts WHERE id = ?').pluck().get(id) as string;

test("an entity's newest facts of one kind, however many newer facts of that kind leave it out", async () => {
  await t.engine.retain(BANK, {
    items: [
      { content: 'Zelda planted tulips in Utrecht.', timestamp: '2024-01-01T10:00:00Z' },
      { content: 'Zelda repaired an old bicycle.', timestamp: '2024-01-02T10:00:00Z' },
    ],
  });
  const entity = zelda();
  const kind = kindOf(byEntityWalk(entity, 'world', 1)[0] ?? byEntityWalk(entity, 'experience', 1)[0]);
  const check = async (limit: number, what: string): Promise<void> => {
    const found = (await t.store.newestFacts(BANK, { kinds: [kind as 'world'], entityId: entity, limit })).map((f) => f.id);
    assert.deepEqual(found, byEntityWalk(entity, kind, limit), what);
  };
  await check(5, 'the kind has fewer facts than the window: exact from its side');
  // More newer facts of that kind than the window looks through, none about Zelda: the entity's walk answers.
  for (let i = 0; i < 2100; i += 300)
    await t.engine.retain(BANK, {
      items: Array.from({ length: 300 }, (_, k) => ({
        content: `The team filed report number ${i + k} about the harbour cranes.`,
        timestamp: '2024-02-01T10:00:00Z',
      })),
    });
  await check(2, 'too few in the window: the entity walk takes over');
  await t.engine.retain(BANK, { items: [{ content: 'Zelda moved to Leiden in March.', timestamp: '2024-03-01T10:00:00Z' }] });
  await check(1, 'enough in the window: its newest');
  await check(3, 'one in the window, two before it');
});
