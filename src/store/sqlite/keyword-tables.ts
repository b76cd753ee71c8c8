// The per-bank keyword indexes of the embedded store: each bank's facts and chunks have FTS5 tables of their own
// (BM25 statistics are the bank's alone), named by a number from keyword_indexes, never by the bank's id. Triggers
// record changed rows in keyword_changes (migration 005); `syncKeywordIndexes` applies that record to the banks'
// tables inside the caller's transaction, so an item is in the index exactly when it is in the store. A bank's
// tables are made with the bank (or on its first write) and dropped with it. Each table's row count and token total
// are kept beside it (migration 008), adjusted by every sync: FTS5's own for a contentless_delete table never lose a
// deleted row, and BM25 (bm25.ts) must count only the rows the table holds. Each write that takes rows out of a table
// counts it and logs their rowids (migration 013), so a connection remembering the table's row lengths forgets only those.
import type { Db } from './database.ts';
import { readVarint } from './fts-doclists.ts';
import { NOT_PURGING } from './rows.ts';
import { prepared } from './statements.ts';

export type KeywordSource = 'fact' | 'chunk';

/** How the keyword tables split and normalise text (lowercase, diacritics folded, Porter stems); queries are read
 * by the same tokenizer (fts-terms.ts). */
export const KEYWORD_TOKENIZER = 'porter unicode61';
/** A keyword table's FTS5 arguments: one column, the text; no copy of it kept; rows deletable by rowid. */
export const KEYWORD_TABLE_ARGS = `text, content='', contentless_delete=1, tokenize='${KEYWORD_TOKENIZER}'`;

const SOURCES: readonly KeywordSource[] = ['fact', 'chunk'];

/** How many of the latest removed rowids the log keeps per table, whole writes at a time: enough for the consolidation
 * batches between two searches, and fewer than a search re-reads after forgetting a large table whole. A write taking
 * out more rows is not logged (a connection that knew the table before it forgets it whole). */
export const KEYWORD_REMOVED_ROWS_KEPT = 4096;

/** Row lengths are kept in windows of 2^10 rowids, one blob each (migration 017). */
export const KEYWORD_WINDOW_BITS = 10;
export const KEYWORD_WINDOW = 2 ** KEYWORD_WINDOW_BITS;

/** What each index holds of a row: a fact's text and its context; a chunk's text after its speaker. */
const INDEXED: Record<KeywordSource, { table: string; text: string }> = {
  fact: { table: 'facts', text: `t.text || coalesce(' ' || t.context, '')` },
  chunk: { table: 'chunks', text: `coalesce(t.speaker || ': ', '') || t.text` },
};

/** A query of every row of a bank's facts or chunks as the keyword table holds it (rid, text); its one parameter is
 * the bank's id. */
export function keywordIndexedRows(source: KeywordSource): string {
  return `SELECT t.rid AS rid, ${INDEXED[source].text} AS text FROM ${INDEXED[source].table} t WHERE t.bank_id = ?`;
}

/** The same of the bank's rows recorded as changed (those that still exist). */
function changedIndexedRows(source: KeywordSource): string {
  return `SELECT t.rid AS rid, ${INDEXED[source].text} AS text FROM keyword_changes k
          JOIN ${INDEXED[source].table} t ON t.rid = k.rid AND t.bank_id = k.bank_id WHERE k.bank_id = ? AND k.source = '${source}'`;
}

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

/** The columns of keyword_indexes counting, per source: the writes that took rows out of its table (migration 006);
 * the rows it holds and their tokens in all (migration 008). */
const COLUMNS: Record<KeywordSource, { removals: string; rows: string; tokens: string; windows: string }> = {
  fact: { removals: 'fact_removals', rows: 'fact_rows', tokens: 'fact_tokens', windows: 'fact_windows' },
  chunk: { removals: 'chunk_removals', rows: 'chunk_rows', tokens: 'chunk_tokens', windows: 'chunk_windows' },
};

/** How many writes took rows out of the source's table numbered n: while it stands still, every row still in the
 * table has the text it was indexed with. */
export function keywordRemovalsOf(db: Db, n: number, source: KeywordSource): number {
  return keywordStatsOf(db, n, source)?.removals ?? 0;
}

/** What BM25 needs to know of a keyword table besides its postings and row lengths: its removals count (above), the
 * rows it holds, and their tokens in all (null while not counted: a table of an older database, before the store
 * opened it). */
export type KeywordStats = { removals: number; rows: number | null; tokens: number | null };

/** The statistics of the source's table numbered n (undefined: no such table). */
export function keywordStatsOf(db: Db, n: number, source: KeywordSource): KeywordStats | undefined {
  const c = COLUMNS[source];
  return prepared(db, `SELECT ${c.removals} AS removals, ${c.rows} AS rows, ${c.tokens} AS tokens FROM keyword_indexes WHERE n = ?`).get(
    n,
  ) as KeywordStats | undefined;
}

/** The number of the bank's keyword tables, made now if the bank has none. */
export function ensureKeywordIndex(db: Db, bankId: string): number {
  const known = keywordIndexOf(db, bankId);
  if (known !== null) return known;
  const { n } = prepared(
    db,
    `INSERT INTO keyword_indexes (bank_id, fact_rows, fact_tokens, chunk_rows, chunk_tokens, fact_windows, chunk_windows)
    VALUES (?, 0, 0, 0, 0, 1, 1) RETURNING n`,
  ).get(bankId) as { n: number };
  for (const source of SOURCES) db.exec(`CREATE VIRTUAL TABLE ${keywordTable(n, source)} USING fts5(${KEYWORD_TABLE_ARGS})`);
  return n;
}

/** The large shadow tables of the bank's keyword tables (FTS5's doclist pages and row sizes; its page index is small
 * and has no rowid), which a bank's delete empties step by step before it drops them; none when it has no index. */
export function keywordShadowTables(db: Db, bankId: string): string[] {
  const n = keywordIndexOf(db, bankId);
  if (n === null) return [];
  const shadows = SOURCES.flatMap((source) => ['data', 'docsize'].map((part) => `${keywordTable(n, source)}_${part}`));
  const present = new Set(prepared(db, "SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  return shadows.filter((t) => present.has(t));
}

/** Drops the bank's keyword tables and pending changes (in the caller's transaction, with the bank's rows). */
export function dropKeywordIndex(db: Db, bankId: string): void {
  const n = keywordIndexOf(db, bankId);
  if (n !== null) {
    for (const source of SOURCES) db.exec(`DROP TABLE IF EXISTS ${keywordTable(n, source)}`);
    prepared(db, 'DELETE FROM keyword_indexes WHERE n = ?').run(n);
    prepared(db, 'DELETE FROM keyword_removed_rows WHERE n = ?').run(n);
    prepared(db, 'DELETE FROM keyword_windows WHERE n = ?').run(n);
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
    // A bank being deleted drops its keyword tables whole at the end: its rows' changes are not applied one by one.
    const exists = prepared(db, `SELECT 1 FROM banks WHERE id = ? AND ${NOT_PURGING}`).get(bankId) !== undefined;
    const n = exists ? ensureKeywordIndex(db, bankId) : null;
    if (n !== null) for (const source of SOURCES) syncSource(db, bankId, n, source);
    prepared(db, 'DELETE FROM keyword_changes WHERE bank_id = ?').run(bankId);
  }
}

/** Takes the bank's changed rows out of the source's table and puts those that exist back in with their current
 * text, moving the table's counts by the rows that left and came in (read from its document sizes, before and after:
 * a changed row is in the table before exactly when it left, after exactly when it came in). */
function syncSource(db: Db, bankId: string, n: number, source: KeywordSource): void {
  const table = keywordTable(n, source);
  const c = COLUMNS[source];
  const before = totalOf(
    prepared(
      db,
      `SELECT d.sz FROM keyword_changes k JOIN ${table}_docsize d ON d.id = k.rid
    WHERE k.bank_id = ? AND k.source = ?`,
    )
      .pluck()
      .all(bankId, source) as Uint8Array[],
  );
  const stale = prepared(db, 'SELECT rid FROM keyword_changes WHERE bank_id = ? AND source = ? AND stale = 1').all(
    bankId,
    source,
  ) as Array<{ rid: number }>;
  if (stale.length) {
    const remove = prepared(db, `DELETE FROM ${table} WHERE rowid = ?`);
    for (const r of stale) remove.run(r.rid);
    const removal = prepared(db, `UPDATE keyword_indexes SET ${c.removals} = ${c.removals} + 1 WHERE n = ? RETURNING ${c.removals}`)
      .pluck()
      .get(n) as number;
    logRemovedRows(db, bankId, n, source, removal, stale.length);
  }
  prepared(db, `INSERT INTO ${table} (rowid, text) ${changedIndexedRows(source)}`).run(bankId);
  const entered = prepared(
    db,
    `SELECT k.rid, d.sz FROM keyword_changes k JOIN ${table}_docsize d ON d.id = k.rid
    WHERE k.bank_id = ? AND k.source = ?`,
  )
    .raw()
    .all(bankId, source) as Array<[number, Uint8Array]>;
  const after = totalOf(entered.map((r) => r[1]));
  if (after.rows !== before.rows || after.tokens !== before.tokens)
    prepared(db, `UPDATE keyword_indexes SET ${c.rows} = ${c.rows} + ?, ${c.tokens} = ${c.tokens} + ? WHERE n = ?`).run(
      after.rows - before.rows,
      after.tokens - before.tokens,
      n,
    );
  writeWindows(db, n, source, entered);
}

/** Writes the lengths of the rows that came in to their windows' blobs. */
function writeWindows(db: Db, n: number, source: KeywordSource, rows: Iterable<[number, Uint8Array]>): void {
  const byWindow = new Map<number, Array<[number, number]>>();
  for (const [rid, sz] of rows) {
    const w = Math.floor(rid / KEYWORD_WINDOW);
    let list = byWindow.get(w);
    if (!list) byWindow.set(w, (list = []));
    list.push([rid - w * KEYWORD_WINDOW, readVarint(sz, { i: 0 })]);
  }
  const save = prepared(
    db,
    `INSERT INTO keyword_windows (n, source, w, lengths) VALUES (?, ?, ?, ?)
    ON CONFLICT (n, source, w) DO UPDATE SET lengths = excluded.lengths`,
  );
  for (const [w, list] of byWindow) {
    const lengths = keywordWindow(db, n, source, w) ?? new Uint32Array(KEYWORD_WINDOW);
    for (const [slot, length] of list) lengths[slot] = length;
    save.run(n, source, w, Buffer.from(lengths.buffer, lengths.byteOffset, lengths.byteLength));
  }
}

/** Whether the windows of the source's table numbered n are written (false: a table from before migration 017 the
 * store has not yet written them for). */
export function keywordWindowsWritten(db: Db, n: number, source: KeywordSource): boolean {
  return prepared(db, `SELECT ${COLUMNS[source].windows} FROM keyword_indexes WHERE n = ?`).pluck().get(n) === 1;
}

/** The lengths of the rows of window w (rowids w * KEYWORD_WINDOW on) of the source's table numbered n, 0 where the
 * table holds no row; null when no row of the table was ever there. */
export function keywordWindow(db: Db, n: number, source: KeywordSource, w: number): Uint32Array | null {
  const blob = prepared(db, 'SELECT lengths FROM keyword_windows WHERE n = ? AND source = ? AND w = ?').pluck().get(n, source, w) as
    | Uint8Array
    | undefined;
  if (!blob || blob.byteLength !== KEYWORD_WINDOW * 4) return null;
  const out = new Uint32Array(KEYWORD_WINDOW);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/** Logs the rowids the write takes out of the source's table under its new removals count (in the write's
 * transaction, with the count), then drops the oldest writes' rowids beyond the latest KEYWORD_REMOVED_ROWS_KEPT. */
function logRemovedRows(db: Db, bankId: string, n: number, source: KeywordSource, removal: number, count: number): void {
  if (count > KEYWORD_REMOVED_ROWS_KEPT) return;
  prepared(
    db,
    `INSERT INTO keyword_removed_rows (n, source, removal, rid)
    SELECT ?, ?, ?, rid FROM keyword_changes WHERE bank_id = ? AND source = ? AND stale = 1`,
  ).run(n, source, removal, bankId, source);
  // The write of the first rowid past the kept ones goes whole, and every older one.
  const oldest = prepared(
    db,
    `SELECT removal FROM keyword_removed_rows WHERE n = ? AND source = ?
    ORDER BY removal DESC LIMIT 1 OFFSET ${KEYWORD_REMOVED_ROWS_KEPT}`,
  )
    .pluck()
    .get(n, source) as number | undefined;
  if (oldest !== undefined)
    prepared(db, 'DELETE FROM keyword_removed_rows WHERE n = ? AND source = ? AND removal <= ?').run(n, source, oldest);
}

/** The rowids of the rows taken out of the source's table numbered n by the writes that took its removals count past
 * `since` up to `upTo` (a row revised twice comes twice), or null when the log no longer holds them all. */
export function keywordRowsRemovedSince(db: Db, n: number, source: KeywordSource, since: number, upTo: number): number[] | null {
  if (upTo < since || upTo - since > KEYWORD_REMOVED_ROWS_KEPT) return null;
  if (upTo === since) return [];
  const rows = prepared(
    db,
    `SELECT removal, rid FROM keyword_removed_rows WHERE n = ? AND source = ? AND removal > ? AND removal <= ?
    ORDER BY removal`,
  )
    .raw()
    .all(n, source, since, upTo) as Array<[number, number]>;
  let writes = 0;
  for (let i = 0; i < rows.length; i++) if (i === 0 || rows[i][0] !== rows[i - 1][0]) writes++;
  return writes === upTo - since ? rows.map((r) => r[1]) : null;
}

/** Rows and their tokens in all, from their document sizes (%_docsize.sz: one varint per column, one column here). */
function totalOf(sizes: Iterable<Uint8Array>): { rows: number; tokens: number } {
  let rows = 0;
  let tokens = 0;
  for (const sz of sizes) {
    rows++;
    tokens += readVarint(sz, { i: 0 });
  }
  return { rows, tokens };
}

/** Counts the tables whose totals or windows are not known (a database from before migration 008 or 017) from their
 * document sizes, once: a scan of each such table's rows. Call when the store opens, before any search. */
export function countKeywordTotals(db: Db): void {
  const uncounted = prepared(
    db,
    `SELECT n FROM keyword_indexes WHERE fact_rows IS NULL OR fact_tokens IS NULL OR chunk_rows IS NULL
    OR chunk_tokens IS NULL OR fact_windows IS NULL OR chunk_windows IS NULL`,
  ).pluck();
  if (uncounted.get() === undefined) return;
  db.transaction(() => {
    for (const n of uncounted.all() as number[]) {
      for (const source of SOURCES) {
        const c = COLUMNS[source];
        const rows = prepared(db, `SELECT id, sz FROM ${keywordTable(n, source)}_docsize`)
          .raw()
          .all() as Array<[number, Uint8Array]>;
        const total = totalOf(rows.map((r) => r[1]));
        prepared(db, 'DELETE FROM keyword_windows WHERE n = ? AND source = ?').run(n, source);
        writeWindows(db, n, source, rows);
        prepared(db, `UPDATE keyword_indexes SET ${c.rows} = ?, ${c.tokens} = ?, ${c.windows} = 1 WHERE n = ?`).run(
          total.rows,
          total.tokens,
          n,
        );
      }
    }
  }).immediate();
}
