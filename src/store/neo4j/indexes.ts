// The keyword arm (Lucene BM25 over each bank's own full-text indexes) and the entity graph, served by Neo4j: the
// KeywordIndex and GraphIndex ports. Both read live from the database, so every process sees every other's writes
// at once.
import type { Entity, FactLink } from '../../core/index.ts';
import type { ChunkHit, FactFilter, GraphIndex, KeywordHit, KeywordIndex, KeywordSearchOptions, LinkQuery } from '../ports.ts';
import type { Neo4jConnection } from './connection.ts';
import type { KeywordSchema } from './keyword-schema.ts';
import type { Neo4jRecords } from './records.ts';
import type { Statement } from './statement.ts';
import * as search from './statements/search.ts';

export class Neo4jKeywordIndex implements KeywordIndex {
  constructor(
    private readonly db: Neo4jConnection,
    private readonly schema: KeywordSchema,
  ) {}

  async searchFacts(
    bankId: string,
    query: string,
    k: number,
    filter: FactFilter = {},
    options: KeywordSearchOptions = {},
  ): Promise<KeywordHit[]> {
    const lucene = search.luceneQuery(query);
    if (!lucene || k <= 0) return [];
    const rows = await this.rows(bankId, search.searchFacts(bankId, lucene, k, filter, options.texts ?? false));
    return rows.map((r) => ({ id: String(r.id), score: Number(r.score), ...(r.text === undefined ? {} : { text: String(r.text) }) }));
  }

  async searchChunks(bankId: string, query: string, k: number): Promise<ChunkHit[]> {
    const lucene = search.luceneQuery(query);
    if (!lucene || k <= 0) return [];
    return (await this.rows(bankId, search.searchChunks(bankId, lucene, k))).map((r) => ({
      id: String(r.id),
      score: Number(r.score),
      documentId: String(r.documentId),
    }));
  }

  /**
   * Runs a search on the bank's indexes; a bank that does not exist has none and finds nothing. When the query
   * fails, another process may have dropped the indexes since this one checked them (the bank deleted, perhaps
   * re-created): the schema is checked again, once, and the query retried.
   */
  private async rows(bankId: string, statement: Statement): Promise<Array<Record<string, unknown>>> {
    if (!(await this.schema.ensure(bankId))) return [];
    return this.db.read(statement).catch(async () => {
      this.schema.forget(bankId);
      return (await this.schema.ensure(bankId)) ? this.db.read(statement) : [];
    });
  }
}

export class Neo4jGraphIndex implements GraphIndex {
  constructor(
    private readonly db: Neo4jConnection,
    private readonly records: Neo4jRecords,
  ) {}

  entitiesByKeys(bankId: string, keys: string[]): Promise<Entity[]> {
    return this.records.entitiesByKeys(bankId, keys);
  }

  async factsOfEntities(bankId: string, entityIds: string[], limitPerEntity: number): Promise<Array<{ factId: string; entityId: string }>> {
    if (entityIds.length === 0 || limitPerEntity <= 0) return [];
    const rows = await this.db.read(search.factsOfEntities(bankId, entityIds, limitPerEntity));
    return rows.map((r) => ({ factId: String(r.factId), entityId: String(r.entityId) }));
  }

  async mentionsOf(bankId: string, factIds: string[], entityIds: string[]): Promise<Array<{ factId: string; entityId: string }>> {
    if (factIds.length === 0 || entityIds.length === 0) return [];
    const rows = await this.db.read(search.mentionsOf(bankId, factIds, entityIds));
    return rows.map((r) => ({ factId: String(r.factId), entityId: String(r.entityId) }));
  }

  async linksOf(bankId: string, factIds: string[], options: LinkQuery = {}): Promise<FactLink[]> {
    if (factIds.length === 0 || options.types?.length === 0) return [];
    const rows = await this.db.read(search.linksOf(bankId, factIds, options));
    return rows.map((r) => ({
      bankId,
      from: String(r.source),
      to: String(r.target),
      type: r.type as FactLink['type'],
      weight: Number(r.weight),
    }));
  }
}
