// The entity graph of the embedded store, read straight from SQLite: entities by name key, the facts that mention an
// entity (index fact_entities(entity_id, fact_id)), and the links touching facts (fact_links by either end). Nothing
// is held in memory: a first recall of a large bank no longer loads the bank's whole graph (seconds at 100k facts),
// and writes by other connections (the consolidation thread, a separate worker) are seen at once. A recall asks for
// a few entities' facts and a few dozen facts' links, a few milliseconds of indexed reads.
import type { Entity, FactLink, LinkType } from '../../core/index.ts';
import type { GraphIndex } from '../ports.ts';
import type { Db } from './database.ts';
import { placeholders, toEntity, type Row } from './rows.ts';
import { prepared } from './statements.ts';

export class SqliteGraphIndex implements GraphIndex {
  constructor(private readonly db: Db) {}

  async entitiesByKeys(bankId: string, keys: string[]): Promise<Entity[]> {
    if (keys.length === 0) return [];
    const rows = prepared(
      this.db,
      `SELECT DISTINCT e.* FROM entity_keys k JOIN entities e ON e.id = k.entity_id
         WHERE k.bank_id = ? AND k.key IN (${placeholders(keys.length)})`,
    ).all(bankId, ...keys) as Row[];
    return rows.map(toEntity);
  }

  /** Each entity's facts, oldest first (fact ids grow with time), at most limitPerEntity of each. */
  async factsOfEntities(bankId: string, entityIds: string[], limitPerEntity: number): Promise<Array<{ factId: string; entityId: string }>> {
    const out: Array<{ factId: string; entityId: string }> = [];
    if (limitPerEntity <= 0) return out;
    const read = prepared(
      this.db,
      'SELECT fact_id FROM fact_entities WHERE entity_id = ? AND bank_id = ? ORDER BY fact_id LIMIT ?',
    ).pluck();
    this.db
      .transaction(() => {
        for (const entityId of new Set(entityIds))
          for (const factId of read.all(entityId, bankId, limitPerEntity) as string[]) out.push({ factId, entityId });
      })
      .deferred();
    return out;
  }

  /** The links touching the facts, each seen from the given fact (`from`), whichever way it was written. */
  async linksOf(bankId: string, factIds: string[]): Promise<FactLink[]> {
    if (factIds.length === 0) return [];
    const rows = prepared(
      this.db,
      `SELECT from_id, to_id, type, weight FROM fact_links WHERE from_id IN (SELECT value FROM json_each(@ids)) AND bank_id = @bank
         UNION ALL
         SELECT to_id, from_id, type, weight FROM fact_links WHERE to_id IN (SELECT value FROM json_each(@ids)) AND bank_id = @bank`,
    )
      .raw()
      .all({ ids: JSON.stringify([...new Set(factIds)]), bank: bankId }) as Array<[string, string, LinkType, number]>;
    return rows.map(([from, to, type, weight]) => ({ bankId, from, to, type, weight }));
  }
}
