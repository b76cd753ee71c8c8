// BM25 keyword search over SQLite FTS5 (porter stemming): facts and chunks, each bank in tables of its own
// (keyword-tables.ts), so a bank's ranking and scores depend on nothing outside it.
import type { FactFilter, KeywordIndex, Scored } from '../ports.ts';
import { contentWords } from '../../text/words.ts';
import type { Db } from './database.ts';
import { factFilterSql } from './filters.ts';
import { keywordChangesPending, keywordIndexOf, keywordTable, syncKeywordIndexes } from './keyword-tables.ts';
import type { SqliteReaders } from './readers.ts';
import { prepared } from './statements.ts';

/** An FTS5 query that ORs the query's content words (quoted, so no FTS syntax leaks in). */
export function ftsQuery(text: string): string | null {
  const terms = [...new Set(contentWords(text))];
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t}"`).join(' OR ');
}

/** Where the keyword index may run its queries off the main thread, and when it should. */
export interface KeywordOffload {
  readers: SqliteReaders;
  /** The bank's size in facts, as far as known without a query (0 when not known). */
  sizeOf(bankId: string): number;
  /** Banks with at least this many facts are searched on a reader thread. */
  minFacts: number;
}

export class SqliteKeywordIndex implements KeywordIndex {
  constructor(
    private readonly db: Db,
    private readonly offload: KeywordOffload | null = null,
  ) {}

  async searchFacts(bankId: string, query: string, k: number, filter: FactFilter = {}): Promise<Scored[]> {
    const match = ftsQuery(query);
    const n = match && this.indexOf(bankId);
    if (!match || !n) return [];
    const where = factFilterSql(filter, 'f');
    const table = keywordTable(n, 'fact');
    const rows = (await this.read(
      bankId,
      `SELECT f.id AS id, bm25(${table}) AS s FROM ${table} JOIN facts f ON f.rid = ${table}.rowid
       WHERE ${table} MATCH ? AND f.bank_id = ? ${where.sql} ORDER BY s LIMIT ?`,
      [match, bankId, ...where.params, k],
    )) as Array<{ id: string; s: number }>;
    return rows.map((r) => ({ id: r.id, score: -r.s }));
  }

  async searchChunks(bankId: string, query: string, k: number): Promise<Scored[]> {
    const match = ftsQuery(query);
    const n = match && this.indexOf(bankId);
    if (!match || !n) return [];
    const table = keywordTable(n, 'chunk');
    const rows = (await this.read(
      bankId,
      `SELECT c.id AS id, bm25(${table}) AS s FROM ${table} JOIN chunks c ON c.rid = ${table}.rowid
       WHERE ${table} MATCH ? AND c.bank_id = ? ORDER BY s LIMIT ?`,
      [match, bankId, k],
    )) as Array<{ id: string; s: number }>;
    return rows.map((r) => ({ id: r.id, score: -r.s }));
  }

  /** The number of the bank's keyword tables (null: the bank holds nothing yet). Every write brings the tables up to
   * date before it commits; changes a write left behind (another process's, an older version's) are applied first. */
  private indexOf(bankId: string): number | null {
    if (keywordChangesPending(this.db)) this.db.transaction(() => syncKeywordIndexes(this.db)).immediate();
    return keywordIndexOf(this.db, bankId);
  }

  /** BM25 costs about a microsecond per matching row: in a large bank the facts and chunks searches run on reader
   * threads, beside each other and beside the other arms' work on this thread. */
  private read(bankId: string, sql: string, params: unknown[]): Promise<unknown[]> | unknown[] {
    const offload = this.offload;
    if (offload && offload.sizeOf(bankId) >= offload.minFacts) return offload.readers.all(sql, params);
    return prepared(this.db, sql).all(...params);
  }
}
