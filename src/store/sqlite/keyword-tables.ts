// The per-bank keyword indexes of the embedded store: each bank's facts and chunks have FTS5 tables of their own
// (BM25 statistics are the bank's alone), named by a number from keyword_indexes, never by the bank's id. Triggers
// record changed rows in keyword_changes (migration 005); `syncKeywordIndexes` applies that record to the banks'
// tables inside the caller's transaction, so an item is in the index exactly when it is in the store. A bank's
// tables are made with the bank (or on its first write) and dropped with it.
import type { Db } from './database.ts';
import { prepared } from './statements.ts';

export type KeywordSource = 'fact' | 'chunk';

/** How the keyword tables split and normalise text (lowercase, diacritics folded, Porter stems); queries are read
 * by the same tokenizer (fts-terms.ts). */
export const KEYWORD_TOKENIZER = 'porter unicode61';
/** A keyword table's FTS5 arguments: one column, the text; no copy of it kept; rows deletable by rowid. */
export const KEYWORD_TABLE_ARGS = `text, content='', contentless_delete=1, tokenize='${KEYWORD_TOKENIZER}'`;

const SOURCES: readonly KeywordSource[] = ['fact', 'chunk'];

/** What each index holds of a row: a fact's text; a chunk's text after its speaker. */
const INDEXED_TEXT: Record<KeywordSource, string> = {
  fact: `SELECT t.rid AS rid, t.text AS text FROM keyword_changes k JOIN facts t ON t.rid = k.rid AND t.bank_id = k.bank_id
         WHERE k.bank_id = ? AND k.source = 'fact'`,
  chunk: `SELECT t.rid AS rid, coalesce(t.speaker || ': ', '') || t.text AS text FROM keyword_changes k
          JOIN chunks t ON t.rid = k.rid AND t.bank_id = k.bank_id WHERE k.bank_id = ? AND k.source = 'chunk'`,
};

/** The FTS5 table of a bank's facts or chunks, from its number (an integer from the database, checked). */
export function keywordTable(n: number, source: KeywordSource): string {
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`bad keyword index number ${n}`);
  return `keywords_${source === 'fact' ? 'facts' : 'chunks'}_${n}`;
}

/** The number of the bank's keyword tables, or null when the bank has none (yet). */
export function keywordIndexOf(db: Db, bankId: string): number | null {
  const row = prepared(db, 'SELECT n FROM keyword_indexes WHERE bank_id = ?').get(bankId) as { n: number } | undefined;
  return row ? row.n : null;
}

/** The column counting the writes that took rows out of a source's tables (migration 006). */
const REMOVALS: Record<KeywordSource, string> = { fact: 'fact_removals', chunk: 'chunk_removals' };

/** How many writes took rows out of the source's table numbered n: while it stands still, every row still in the
 * table has the text it was indexed with. */
export function keywordRemovalsOf(db: Db, n: number, source: KeywordSource): number {
  const row = prepared(db, `SELECT ${REMOVALS[source]} AS v FROM keyword_indexes WHERE n = ?`).get(n) as { v: number } | undefined;
  return row?.v ?? 0;
}

/** The number of the bank's keyword tables, made now if the bank has none. */
export function ensureKeywordIndex(db: Db, bankId: string): number {
  const known = keywordIndexOf(db, bankId);
  if (known !== null) return known;
  const { n } = prepared(db, 'INSERT INTO keyword_indexes (bank_id) VALUES (?) RETURNING n').get(bankId) as { n: number };
  for (const source of SOURCES)
    db.exec(`CREATE VIRTUAL TABLE ${keywordTable(n, source)} USING fts5(${KEYWORD_TABLE_ARGS})`);
  return n;
}

/** Drops the bank's keyword tables and pending changes (in the caller's transaction, with the bank's rows). */
export function dropKeywordIndex(db: Db, bankId: string): void {
  const n = keywordIndexOf(db, bankId);
  if (n !== null) {
    for (const source of SOURCES) db.exec(`DROP TABLE IF EXISTS ${keywordTable(n, source)}`);
    prepared(db, 'DELETE FROM keyword_indexes WHERE n = ?').run(n);
  }
  prepared(db, 'DELETE FROM keyword_changes WHERE bank_id = ?').run(bankId);
}

/** Whether rows changed since the indexes were last brought up to date (an upgraded database, an interrupted
 * writer of an older version). */
export function keywordChangesPending(db: Db): boolean {
  return prepared(db, 'SELECT 1 FROM keyword_changes LIMIT 1').get() !== undefined;
}

/** Applies changes left outside a write transaction (an upgraded database, an interrupted writer of an older
 * version), in a transaction of their own; does nothing when there are none. */
export function syncPendingKeywordChanges(db: Db): void {
  if (keywordChangesPending(db)) db.transaction(() => syncKeywordIndexes(db)).immediate();
}

/** Brings every bank's keyword tables up to date with the recorded changes (call inside a write transaction):
 * rows that may be indexed leave it, rows that exist now enter it with their current text. */
export function syncKeywordIndexes(db: Db): void {
  const banks = prepared(db, 'SELECT DISTINCT bank_id AS bankId FROM keyword_changes').all() as Array<{ bankId: string }>;
  for (const { bankId } of banks) {
    const exists = prepared(db, 'SELECT 1 FROM banks WHERE id = ?').get(bankId) !== undefined;
    const n = exists ? ensureKeywordIndex(db, bankId) : null;
    if (n !== null) for (const source of SOURCES) syncSource(db, bankId, n, source);
    prepared(db, 'DELETE FROM keyword_changes WHERE bank_id = ?').run(bankId);
  }
}

function syncSource(db: Db, bankId: string, n: number, source: KeywordSource): void {
  const table = keywordTable(n, source);
  const stale = prepared(db, 'SELECT rid FROM keyword_changes WHERE bank_id = ? AND source = ? AND stale = 1')
    .all(bankId, source) as Array<{ rid: number }>;
  if (stale.length) {
    const remove = prepared(db, `DELETE FROM ${table} WHERE rowid = ?`);
    for (const r of stale) remove.run(r.rid);
    prepared(db, `UPDATE keyword_indexes SET ${REMOVALS[source]} = ${REMOVALS[source]} + 1 WHERE n = ?`).run(n);
  }
  prepared(db, `INSERT INTO ${table} (rowid, text) ${INDEXED_TEXT[source]}`).run(bankId);
}
