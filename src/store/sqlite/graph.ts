// The entity graph of the embedded store, read straight from SQLite: entities by name key, the facts that mention an
// entity (index fact_entities(entity_id, fact_id)), the links touching facts (fact_links by either end), and how
// often facts mention two entities together (the explorer's graph). Nothing
// is held in memory: a first recall of a large bank no longer loads the bank's whole graph (seconds at 100k facts),
// and writes by other connections (the consolidation thread, a separate worker) are seen at once. A recall asks for
// a few entities' facts and a few dozen facts' links, a few milliseconds of indexed reads.
import type { Entity, FactLink, LinkType } from '../../core/index.ts';
import { toEdges } from '../co-mentions.ts';
import type { EntityEdge, GraphIndex, LinkQuery } from '../ports.ts';
import type { Db } from './database.ts';
import { inLists, toEntity, type Row } from './rows.ts';
import { prepared } from './statements.ts';

type LinkRow = [string, string, LinkType, number];
const LINK_TYPES: readonly LinkType[] = ['temporal', 'semantic', 'causal', 'entity'];

/**
 * The co-mentions among entities given in coMentionOrder (ids of the bank's entities, so their mentions are all of
 * that bank): for each but the last, the active facts that mention it and a later one, counted per later one. Each
 * entity's facts are read from fact_entities_by_entity_fact alone, each fact's other mentions from the primary key
 * (a few rows, kept only when later: `+` stops SQLite seeking every later id in every fact), and only then the fact,
 * for its status. CROSS JOIN holds that order: a fact is read once per co-mention, never per mention.
 */
export function coMentions(db: Db, bankId: string, ordered: string[]): EntityEdge[] {
  const read = prepared(
    db,
    `SELECT b.entity_id AS other, count(*) AS weight
       FROM fact_entities a CROSS JOIN fact_entities b CROSS JOIN facts f
      WHERE a.entity_id = ? AND b.fact_id = a.fact_id AND +b.entity_id IN (SELECT value FROM json_each(?))
        AND f.id = a.fact_id AND f.bank_id = ? AND f.status = 'active'
      GROUP BY b.entity_id`,
  );
  const rows: Array<{ one: string; other: string; weight: number }> = [];
  db.transaction(() => {
    for (let i = 0; i < ordered.length - 1; i++)
      for (const r of read.all(ordered[i], JSON.stringify(ordered.slice(i + 1)), bankId) as Array<{ other: string; weight: number }>)
        rows.push({ one: ordered[i], ...r });
  }).deferred();
  return toEdges(rows);
}

/** A fact with fewer links than this (both ways, all types) has them read whole; one with more, by their strongest.
 * Small: a seed is often a sentence with hundreds of near-copies, and reading a long list before falling back to the
 * strongest of each range cost more than the ranges alone (measured at 1M facts: 8-32 alike, 256 twice as slow). */
const LINKS_READ_WHOLE = 32;

export class SqliteGraphIndex implements GraphIndex {
  constructor(private readonly db: Db) {}

  async entitiesByKeys(bankId: string, keys: string[]): Promise<Entity[]> {
    if (keys.length === 0) return [];
    const out = new Map<string, Entity>();
    for (const list of inLists(keys)) {
      const rows = prepared(
        this.db,
        `SELECT DISTINCT e.* FROM entity_keys k JOIN entities e ON e.id = k.entity_id WHERE k.bank_id = ? AND k.key IN (${list.marks})`,
      ).all(bankId, ...list.values) as Row[];
      for (const r of rows) out.set(String(r.id), toEntity(r));
    }
    return [...out.values()];
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

  /** Probes (entity, fact) pairs in the entity's index: the facts' own rows would be read whole otherwise. */
  async mentionsOf(bankId: string, factIds: string[], entityIds: string[]): Promise<Array<{ factId: string; entityId: string }>> {
    if (factIds.length === 0 || entityIds.length === 0) return [];
    return prepared(
      this.db,
      `SELECT fact_id AS factId, entity_id AS entityId FROM fact_entities INDEXED BY fact_entities_by_entity_fact
         WHERE entity_id IN (SELECT value FROM json_each(?)) AND fact_id IN (SELECT value FROM json_each(?)) AND bank_id = ?
         ORDER BY fact_id, entity_id`,
    ).all(JSON.stringify(entityIds), JSON.stringify(factIds), bankId) as Array<{ factId: string; entityId: string }>;
  }

  /** The links touching the facts, each seen from the given fact (`from`), whichever way it was written. */
  async linksOf(bankId: string, factIds: string[], options: LinkQuery = {}): Promise<FactLink[]> {
    const types = options.types ?? LINK_TYPES;
    if (factIds.length === 0 || types.length === 0) return [];
    const ids = [...new Set(factIds)];
    // On this thread even in a large bank: a reader thread's round trip (and its connection, which maps nothing) cost
    // more than the read, which the arm asking for it waits on (at 1M facts, p50 and p95 of recall both fell).
    if (options.limitPerFact !== undefined) return strongestLinks(this.db, bankId, ids, types, options.limitPerFact);
    const rows = prepared(
      this.db,
      `SELECT from_id, to_id, type, weight FROM fact_links
         WHERE from_id IN (SELECT value FROM json_each(@ids)) AND bank_id = @bank AND type IN (SELECT value FROM json_each(@types))
       UNION ALL
       SELECT to_id, from_id, type, weight FROM fact_links
         WHERE to_id IN (SELECT value FROM json_each(@ids)) AND type IN (SELECT value FROM json_each(@types)) AND bank_id = @bank`,
    )
      .raw()
      .all({ ids: JSON.stringify(ids), types: JSON.stringify(types), bank: bankId }) as LinkRow[];
    return rows.map(([from, to, type, weight]) => ({ bankId, from, to, type, weight }));
  }
}

/** Each fact's strongest links of the types (at most `limit`), both ways. Most facts have a few links: one statement
 * reads them all and they are sorted here. A fact with more (a sentence with hundreds of near-copies) is read from the
 * strongest end of each range instead: the links into it from the index fact_links_into_covering (one range per type,
 * without reading the table), the links out of it sorted by SQLite. */
function strongestLinks(db: Db, bankId: string, factIds: string[], types: readonly LinkType[], limit: number): FactLink[] {
  if (!(limit >= 1)) return [];
  const all = prepared(
    db,
    `SELECT from_id, to_id, type, weight FROM fact_links WHERE from_id = @id AND bank_id = @bank
     UNION ALL
     SELECT to_id, from_id, type, weight FROM fact_links WHERE to_id = @id AND bank_id = @bank
     LIMIT @cap`,
  ).raw();
  const out = prepared(
    db,
    `SELECT from_id, to_id, type, weight FROM fact_links
       WHERE from_id = ? AND bank_id = ? AND type IN (SELECT value FROM json_each(?)) ORDER BY weight DESC LIMIT ?`,
  ).raw();
  const into = prepared(
    db,
    'SELECT to_id, from_id, type, weight FROM fact_links WHERE to_id = ? AND type = ? AND bank_id = ? ORDER BY weight DESC LIMIT ?',
  ).raw();
  const typeList = JSON.stringify(types);
  const wanted = new Set<string>(types);
  const links: FactLink[] = [];
  // One read transaction: every fact's links from the same snapshot.
  db.transaction(() => {
    for (const id of factIds) {
      let rows = all.all({ id, bank: bankId, cap: LINKS_READ_WHOLE }) as LinkRow[];
      if (rows.length >= LINKS_READ_WHOLE) {
        rows = out.all(id, bankId, typeList, limit) as LinkRow[];
        for (const type of types) rows.push(...(into.all(id, type, bankId, limit) as LinkRow[]));
      } else rows = rows.filter((r) => wanted.has(r[2]));
      rows.sort((a, b) => b[3] - a[3]);
      for (const [from, to, type, weight] of rows.slice(0, limit)) links.push({ bankId, from, to, type, weight });
    }
  }).deferred();
  return links;
}
