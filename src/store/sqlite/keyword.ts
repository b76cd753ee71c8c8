// BM25 keyword search over SQLite FTS5 (porter stemming): facts and chunks, each bank in tables of its own
// (keyword-tables.ts), so a bank's ranking and scores depend on nothing outside it.
import type { FactFilter, KeywordIndex, Scored } from '../ports.ts';
import { contentWords } from '../../text/words.ts';
import type { Db } from './database.ts';
import { factFilterSql } from './filters.ts';
import { keywordIndexOf, keywordTable, syncPendingKeywordChanges } from './keyword-tables.ts';
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
    return this.indexFirst(
      bankId, table, match, k,
      `SELECT f.rid AS rid, f.id AS id FROM json_each(?) j CROSS JOIN facts f ON f.rid = j.value WHERE f.bank_id = ?${where.sql}`,
      where.params,
    );
  }

  async searchChunks(bankId: string, query: string, k: number): Promise<Scored[]> {
    const match = ftsQuery(query);
    const n = match && this.indexOf(bankId);
    if (!match || !n) return [];
    const table = keywordTable(n, 'chunk');
    return this.indexFirst(
      bankId, table, match, k,
      'SELECT c.rid AS rid, c.id AS id FROM json_each(?) j CROSS JOIN chunks c ON c.rid = j.value WHERE c.bank_id = ?',
      [],
    );
  }

  /** The best rows of the bank's FTS table alone (BM25 order, ties by rowid), then those passing the filter, in that
   * order: no table lookup for every matching row, which in a large bank costs as much as BM25 itself. Exact: the
   * first k passing rows are the same however many rows were read, once k of them passed; when few pass (a narrow
   * filter), more rows are read, up to all of them. */
  private async indexFirst(bankId: string, table: string, match: string, k: number, check: string, params: unknown[]): Promise<Scored[]> {
    for (let fetch = Math.max(2 * k, k + 16); ; fetch *= 4) {
      const top = (await this.read(bankId, `SELECT rowid AS rid, bm25(${table}) AS s FROM ${table} WHERE ${table} MATCH ? ORDER BY s, rowid LIMIT ?`, [
        match,
        fetch,
      ])) as Array<{ rid: number; s: number }>;
      const rows = (await this.read(bankId, check, [JSON.stringify(top.map((r) => r.rid)), bankId, ...params])) as Array<{ rid: number; id: string }>;
      const passing = new Map(rows.map((r) => [r.rid, r.id]));
      const out: Scored[] = [];
      for (const r of top) {
        const id = passing.get(r.rid);
        if (id !== undefined && out.length < k) out.push({ id, score: -r.s });
      }
      if (out.length >= k || top.length < fetch) return out;
    }
  }

  /** The number of the bank's keyword tables (null: the bank holds nothing yet). Every write brings the tables up to
   * date before it commits; changes a write left behind (another process's, an older version's) are applied first. */
  private indexOf(bankId: string): number | null {
    syncPendingKeywordChanges(this.db);
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
