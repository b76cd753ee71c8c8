// Shared by tests of the keyword index: the reference its BM25 scores are held to. Where no row ever left a table,
// that is FTS5's own bm25() on the table; after deletes or re-indexed rows it is bm25() on a table built afresh from
// the rows that are left, because a contentless_delete FTS5 table's own statistics (its averages record) keep
// counting the rows deleted from it.
import type { Db } from './database.ts';
import { KEYWORD_TABLE_ARGS, keywordIndexedRows, type KeywordSource } from './keyword-tables.ts';

export type Fts5Hit = { rid: number; s: number };

/** What FTS5 itself answers for the query words ORed, each a quoted phrase (as the tokenizer splits it). */
export function fts5Top(db: Db, table: string, words: readonly string[], limit: number): Fts5Hit[] {
  return db
    .prepare(`SELECT rowid AS rid, bm25(${table}) AS s FROM ${table} WHERE ${table} MATCH ? ORDER BY s, rowid LIMIT ?`)
    .all(words.map((w) => `"${w}"`).join(' OR '), limit) as Fts5Hit[];
}

/** A keyword table built now from the bank's current facts or chunks alone, with their rowids (replacing one built
 * before under the same name): exact statistics, the reference after rows left the bank's own table. */
export function rebuiltKeywordTable(db: Db, bankId: string, source: KeywordSource): string {
  const table = `rebuilt_${source}s`;
  db.exec(`DROP TABLE IF EXISTS ${table}`);
  db.exec(`CREATE VIRTUAL TABLE ${table} USING fts5(${KEYWORD_TABLE_ARGS})`);
  db.prepare(`INSERT INTO ${table} (rowid, text) ${keywordIndexedRows(source)}`).run(bankId);
  return table;
}
