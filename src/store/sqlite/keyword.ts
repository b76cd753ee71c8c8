// BM25 keyword search over SQLite FTS5 (porter stemming): facts and chunks, each bank in tables of its own
// (keyword-tables.ts), so a bank's ranking and scores depend on nothing outside it. The scores are FTS5's bm25()
// formula, computed from the tables' postings and exact row counts (bm25.ts), which in a large bank is several times
// faster than FTS5's own.
import type { FactFilter, KeywordIndex, Scored } from '../ports.ts';
import { contentWords } from '../../text/index.ts';
import { bm25Top, type Bm25Hit } from './bm25.ts';
import type { Db } from './database.ts';
import { factFilterSql } from './filters.ts';
import { ftsTermsOf } from './fts-terms.ts';
import { keywordIndexOf, syncPendingKeywordChanges, type KeywordSource } from './keyword-tables.ts';
import type { SqliteReaders } from './readers.ts';
import { prepared } from './statements.ts';

/** Words joined by dots or underscores: identifiers (pg_dump, socket.io, v2.3.1, ERR_CONNECTION_REFUSED). */
const JOINED = /[\p{L}\p{N}]+(?:[._][\p{L}\p{N}]+)+/gu;

/** The query's content words, each once, in order: the keyword query ORs them. An identifier stays one word, which
 * the tokenizer makes a phrase (pg_dump -> "pg dump"), so it matches itself, not its parts scattered in a text (and
 * "v2.3.1" keeps its "3" and "1"); abbreviations such as "e.g." are words as before. */
function queryWords(text: string): string[] {
  if (!text.includes('.') && !text.includes('_')) return [...new Set(contentWords(text))];
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(JOINED)) {
    const parts = m[0].split(/[._]/);
    if (parts.every((p) => p.length < 2)) continue;
    out.push(...contentWords(text.slice(last, m.index)), m[0].toLowerCase());
    last = m.index + m[0].length;
  }
  out.push(...contentWords(text.slice(last)));
  return [...new Set(out)];
}

/** An FTS5 query that ORs the words, each quoted (so no FTS syntax leaks in). */
const orQuery = (words: string[]): string => words.map((w) => `"${w}"`).join(' OR ');

/** An FTS5 query that ORs the query's content words. */
export function ftsQuery(text: string): string | null {
  const words = queryWords(text);
  return words.length === 0 ? null : orQuery(words);
}

/** One of a bank's two keyword tables: their number and which. */
type KeywordTableRef = { n: number; source: KeywordSource };

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
    const words = queryWords(query);
    const n = words.length > 0 ? this.indexOf(bankId) : null;
    if (!n) return [];
    const where = factFilterSql(filter, 'f');
    return this.indexFirst(
      bankId,
      { n, source: 'fact' },
      words,
      k,
      `SELECT f.rid AS rid, f.id AS id FROM json_each(?) j CROSS JOIN facts f ON f.rid = j.value WHERE f.bank_id = ?${where.sql}`,
      where.params,
    );
  }

  async searchChunks(bankId: string, query: string, k: number): Promise<Scored[]> {
    const words = queryWords(query);
    const n = words.length > 0 ? this.indexOf(bankId) : null;
    if (!n) return [];
    return this.indexFirst(
      bankId,
      { n, source: 'chunk' },
      words,
      k,
      'SELECT c.rid AS rid, c.id AS id FROM json_each(?) j CROSS JOIN chunks c ON c.rid = j.value WHERE c.bank_id = ?',
      [],
    );
  }

  /** The best rows of the bank's FTS table alone (BM25 order, ties by rowid), then those passing the filter, in that
   * order: no table lookup for every matching row, which in a large bank costs as much as BM25 itself. Exact: the
   * first k passing rows are the same however many rows were read, once k of them passed; when few pass (a narrow
   * filter), more rows are read, up to all of them. */
  private async indexFirst(
    bankId: string,
    index: KeywordTableRef,
    words: string[],
    k: number,
    check: string,
    params: unknown[],
  ): Promise<Scored[]> {
    const terms = ftsTermsOf(words);
    for (let fetch = Math.max(2 * k, k + 16); ; fetch *= 4) {
      const top = await this.best(bankId, index, terms, fetch);
      const rows = (await this.read(bankId, check, [JSON.stringify(top.map((r) => r.rid)), bankId, ...params])) as Array<{
        rid: number;
        id: string;
      }>;
      const passing = new Map(rows.map((r) => [r.rid, r.id]));
      const out: Scored[] = [];
      for (const r of top) {
        const id = passing.get(r.rid);
        if (id !== undefined && out.length < k) out.push({ id, score: -r.s });
      }
      if (out.length >= k || top.length < fetch) return out;
    }
  }

  /** The table's best rows by BM25, scored from its postings (bm25.ts); a word the tokenizer splits (one holding a
   * character FTS5 takes for a separator) is a phrase, as in an FTS5 query. */
  private async best(bankId: string, { n, source }: KeywordTableRef, terms: string[][], limit: number): Promise<Bm25Hit[]> {
    const search = { n, source, phrases: terms, limit };
    return this.offloaded(bankId) ? this.offload!.readers.bm25(search) : bm25Top(this.db, search);
  }

  /** The number of the bank's keyword tables (null: the bank holds nothing yet). Every write brings the tables up to
   * date before it commits; changes a write left behind (another process's, an older version's) are applied first. */
  private indexOf(bankId: string): number | null {
    syncPendingKeywordChanges(this.db);
    return keywordIndexOf(this.db, bankId);
  }

  /** In a large bank a search still handles tens of thousands of postings for common words: the facts and chunks
   * searches run on reader threads, beside each other and beside the other arms' work on this thread. */
  private read(bankId: string, sql: string, params: unknown[]): Promise<unknown[]> | unknown[] {
    return this.offloaded(bankId) ? this.offload!.readers.all(sql, params) : prepared(this.db, sql).all(...params);
  }

  private offloaded(bankId: string): boolean {
    const offload = this.offload;
    return offload !== null && offload.sizeOf(bankId) >= offload.minFacts;
  }
}
