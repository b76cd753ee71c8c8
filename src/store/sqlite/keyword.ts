// BM25 keyword search over SQLite FTS5 (porter stemming): facts and chunks, each bank in tables of its own
// (keyword-tables.ts), so a bank's ranking and scores depend on nothing outside it. The scores are FTS5's bm25()
// formula, computed from the tables' postings and exact row counts (bm25.ts), which in a large bank is several times
// faster than FTS5's own.
import type { ChunkHit, FactFilter, KeywordHit, KeywordIndex, KeywordSearchOptions, Scored } from '../ports.ts';
import { contentWords } from '../../text/index.ts';
import { bm25Passing, type Bm25Passing, type PassingHit } from './bm25.ts';
import type { Db } from './database.ts';
import { factFilterSql } from './filters.ts';
import { ftsTermsOf } from './fts-terms.ts';
import { keywordIndexOf, syncPendingKeywordChanges } from './keyword-tables.ts';
import { type ReadOffload, readersFor } from './readers.ts';

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

export class SqliteKeywordIndex implements KeywordIndex {
  constructor(
    private readonly db: Db,
    private readonly offload: ReadOffload | null = null,
  ) {}

  async searchFacts(
    bankId: string,
    query: string,
    k: number,
    filter: FactFilter = {},
    options: KeywordSearchOptions = {},
  ): Promise<KeywordHit[]> {
    const words = queryWords(query);
    const n = words.length > 0 ? this.indexOf(bankId) : null;
    if (!n) return [];
    const where = factFilterSql(filter, 'f');
    const text = options.texts ? ', f.text AS text' : '';
    return this.search(bankId, {
      search: { n, source: 'fact', phrases: ftsTermsOf(words) },
      k,
      check: `SELECT f.rid AS rid, f.id AS id${text} FROM json_each(?) j CROSS JOIN facts f ON f.rid = j.value WHERE f.bank_id = ?${where.sql}`,
      params: [bankId, ...where.params],
    });
  }

  async searchChunks(bankId: string, query: string, k: number): Promise<ChunkHit[]> {
    const words = queryWords(query);
    const n = words.length > 0 ? this.indexOf(bankId) : null;
    if (!n) return [];
    return this.search<ChunkHit>(bankId, {
      search: { n, source: 'chunk', phrases: ftsTermsOf(words) },
      k,
      check:
        'SELECT c.rid AS rid, c.id AS id, c.document_id AS documentId FROM json_each(?) j CROSS JOIN chunks c ON c.rid = j.value WHERE c.bank_id = ?',
      params: [bankId],
    });
  }

  /** The best rows passing the check (bm25.ts): in a large bank, one task on a reader thread. A search still handles
   * tens of thousands of postings for common words there: the facts and chunks searches run beside each other and
   * beside the other arms' work on this thread. */
  private async search<T extends Scored>(bankId: string, task: Bm25Passing): Promise<T[]> {
    const readers = readersFor(this.offload, bankId);
    const hits: PassingHit[] = readers ? await readers.passing(task) : bm25Passing(this.db, task);
    return hits as unknown as T[];
  }

  /** The number of the bank's keyword tables (null: the bank holds nothing yet). Every write brings the tables up to
   * date before it commits; changes a write left behind (another process's, an older version's) are applied first. */
  private indexOf(bankId: string): number | null {
    syncPendingKeywordChanges(this.db);
    return keywordIndexOf(this.db, bankId);
  }
}
