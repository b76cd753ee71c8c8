// The graph arm: spreading activation over the entity graph. Activation starts at the entities the query
// names and at the top semantic and keyword hits (the seeds); it flows to the facts of those entities and
// over fact-fact links (neighbours in the telling, causes, semantic neighbours) with a decay per link type.
// An entity's activation is divided over how often it is mentioned, so widely mentioned entities spread
// thinly; hubs (mentioned in a large share of the bank's facts, like the user, or more often than the arm
// reads per entity) are not spread over at all, and instead raise the facts that mention them among those
// reached otherwise. A fact's score is what it received, never its own seed activation, so the arm adds
// what the other arms did not find by themselves.
import type { Entity, LinkType } from '../../core/index.ts';
import type { Scored } from '../../store/index.ts';
import { matchesFilter } from '../filter.ts';
import { type ArmContext, type ArmOutput, topHits } from './context.ts';
import { seedsOf } from './seeds.ts';

/**
 * Share of a seed's activation that crosses one fact-fact link of each type (times the link's weight). Causes and
 * neighbours in the telling (an answer follows its question) carry most; semantic links carry little, as the
 * semantic arm already finds what is similar.
 */
export const LINK_DECAY: Record<LinkType, number> = { causal: 0.8, temporal: 0.6, semantic: 0.3, entity: 0.5 };
/** Share of a seed's activation that reaches the facts of an entity it mentions (before the hub damping). */
export const ENTITY_DECAY = 0.2;
/** Links followed from each seed, its strongest: beyond this many, a fact's links are near-copies of it that each
 * receive the same share, and reading them all cost more than the rest of the recall. */
export const LINKS_PER_SEED = 100;
/** Activation an entity named in the query gives its facts (before the hub damping). */
export const QUERY_ENTITY = 0.5;

/** How much of an entity's activation each of its facts receives: 1 for a single mention, shrinking for hubs. */
export const entityShare = (e: Entity): number => 1 / (1 + Math.log(Math.max(1, e.mentionCount)));

export async function graphArm(ctx: ArmContext, seedLists: Promise<Scored[][]>): Promise<ArmOutput> {
  const { store, bankId, request } = ctx;
  const { candidatesPerArm, graphSeeds, factsPerEntity } = request.settings;
  const received = new Map<string, number>();
  const give = (factId: string, amount: number): void => {
    received.set(factId, (received.get(factId) ?? 0) + amount);
  };

  // Entities named in the query: specific ones spread to their facts, hubs only raise facts reached otherwise.
  const named = ctx.query.entities;
  const isHub = (e: Entity): boolean => ctx.query.hubs.has(e.id) || e.mentionCount > factsPerEntity;
  const specific = named.filter((e) => !isHub(e));
  const namedShare = new Map(named.map((e) => [e.id, entityShare(e)]));
  const hubShare = new Map(named.filter(isHub).map((e) => [e.id, entityShare(e)]));
  for (const { factId, entityId } of await store.graph.factsOfEntities(
    bankId,
    specific.map((e) => e.id),
    factsPerEntity,
  ))
    give(factId, QUERY_ENTITY * (namedShare.get(entityId) ?? 0));

  // Seeds: over fact links, and through the specific entities they mention.
  const seeds = seedsOf(await seedLists, graphSeeds);
  const seedIds = [...seeds.keys()];
  // The seeds' links are asked for first (a store that reads them elsewhere does so while their entities are looked
  // up); what each gives is added in the same order as ever (a sum's last digits depend on it).
  const seedLinks = store.graph.linksOf(bankId, seedIds, { limitPerFact: LINKS_PER_SEED });
  const seedFacts = await ctx.facts.facets(seedIds, true);
  const seedEntityIds = [...new Set(seedFacts.flatMap((f) => f.entities ?? []))];
  const seedEntities = (await store.getEntities(bankId, seedEntityIds)).filter((e) => !isHub(e));
  const share = new Map(seedEntities.map((e) => [e.id, entityShare(e)]));
  // Per entity, the seeds mentioning it, strongest first: a fact takes the strongest seed other than itself.
  const seedsOfEntity = new Map<string, Array<{ id: string; strength: number }>>();
  for (const f of seedFacts)
    for (const e of f.entities ?? [])
      if (share.has(e)) seedsOfEntity.set(e, [...(seedsOfEntity.get(e) ?? []), { id: f.id, strength: seeds.get(f.id) ?? 0 }]);
  for (const list of seedsOfEntity.values()) list.sort((a, b) => b.strength - a.strength);
  const entityFacts = await store.graph.factsOfEntities(bankId, [...seedsOfEntity.keys()], factsPerEntity);
  for (const link of await seedLinks) give(link.to, (seeds.get(link.from) ?? 0) * link.weight * LINK_DECAY[link.type]);
  for (const { factId, entityId } of entityFacts) {
    const from = seedsOfEntity.get(entityId)?.find((s) => s.id !== factId);
    if (from) give(factId, ENTITY_DECAY * from.strength * (share.get(entityId) ?? 0));
  }

  // Raise the best reached facts that mention a hub the query names (their mentions of those hubs alone are read), then
  // read them in that order, page by page, until enough pass the filter.
  let pool = topHits(received, candidatesPerArm * 3).filter((h) => h.score > 1e-9);
  const scores = new Map<string, number>();
  if (hubShare.size > 0) {
    const boost = new Map<string, number>();
    for (const { factId, entityId } of await store.graph.mentionsOf(
      bankId,
      pool.map((h) => h.id),
      [...hubShare.keys()],
    ))
      boost.set(factId, (boost.get(factId) ?? 0) + QUERY_ENTITY * (hubShare.get(entityId) ?? 0));
    pool = topHits(new Map(pool.map((h) => [h.id, h.score + (boost.get(h.id) ?? 0)])), pool.length);
  }
  for (let from = 0, page = candidatesPerArm + 16; from < pool.length; from += page, page *= 2) {
    const part = pool.slice(from, from + page);
    const facts = new Map(
      (
        await ctx.facts.facets(
          part.map((h) => h.id),
          false,
        )
      ).map((f) => [f.id, f]),
    );
    for (const h of part) {
      const f = facts.get(h.id);
      if (f && matchesFilter(f, request.filter)) scores.set(f.id, h.score);
    }
    if (scores.size >= candidatesPerArm) break;
  }
  return {
    hits: topHits(scores, candidatesPerArm),
    detail: {
      entities: named.map((e) => ({ id: e.id, name: e.name, mentions: e.mentionCount, hub: isHub(e) })),
      seeds: seedIds.length,
      reached: received.size,
    },
  };
}
