// The entity graph whatever store holds it: the order in which co-mentions are read, and the edges made of them.
import type { Entity } from '../core/index.ts';
import type { EntityEdge } from './ports.ts';

/**
 * The entities' ids in the order their co-mentions are read, fewest mentions first: each pair is read once, from the
 * facts of its less mentioned entity, and the most mentioned entity's facts (a hub's tens of thousands) are never
 * read at all. The stored mention count only steers the work; the weights are counted from the facts.
 */
export function coMentionOrder(entities: Entity[]): string[] {
  const ordered = [...entities].sort((a, b) => a.mentionCount - b.mentionCount || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return [...new Set(ordered.map((e) => e.id))];
}

/** Edges of co-mention counts read as (entity, a later one, facts): source < target, ordered by source then target. */
export function toEdges(rows: Array<{ one: string; other: string; weight: number }>): EntityEdge[] {
  return rows
    .filter((r) => r.one !== r.other && r.weight > 0)
    .map((r) =>
      r.one < r.other ? { source: r.one, target: r.other, weight: r.weight } : { source: r.other, target: r.one, weight: r.weight },
    )
    .sort((a, b) => (a.source !== b.source ? (a.source < b.source ? -1 : 1) : a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
}
