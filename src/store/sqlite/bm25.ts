// BM25 over a bank's FTS5 keyword table, computed here rather than by FTS5's bm25(). FTS5 evaluates an OR query row
// by row and reads every matching row's length from disk (about 1.4 us a row: tens of milliseconds when the query's
// words are common in a 100k-fact bank). Here each word's postings are decoded straight from the table's segment
// pages (fts-doclists.ts, tens of nanoseconds a posting), row lengths come from a per-connection memory of the table's
// document sizes, and the sum is FTS5's own: same k1 and b, same idf and its floor, same order of additions, so the
// ranking (ties by rowid) and the scores are bm25()'s, which the tests check. One difference, on purpose: the row
// count and average row length are the table's exact totals, kept by the store (keyword-tables.ts), not FTS5's
// averages record, which a contentless_delete table never corrects for the rows deleted from it. So the scores are
// those bm25() gives on a table holding just the rows this one holds: equal to the table's own bm25() until a row
// leaves it, and after that, equal to those of a copy of the bank built afresh (an import, say).
import { TopK } from '../../core/index.ts';
import type { Db } from './database.ts';
import { readVarint, termPostings, type Postings } from './fts-doclists.ts';
import { keywordRowsRemovedSince, keywordStatsOf, keywordTable, type KeywordSource } from './keyword-tables.ts';
import { prepared } from './statements.ts';

export interface Bm25Search {
  /** The bank's keyword tables' number and which of the two: its facts' or its chunks' (keywordTable). */
  n: number;
  source: KeywordSource;
  /** One FTS5 phrase per query word, in query order (a word repeated counts twice, as in FTS5): the word's terms, one,
   * or several when the tokenizer splits the word (fts-terms.ts), which then match at consecutive positions only. */
  phrases: string[][];
  limit: number;
}

export interface Bm25Hit {
  rid: number;
  /** FTS5's sign: lower is better (bm25() is the score negated). */
  s: number;
}

const K1 = 1.2;
const B = 0.75;
/** Tables whose row lengths a connection keeps in memory (the most recently searched). */
const MAX_TABLES = 16;

type Lengths = { removals: number; sizes: RowLengths };
type ConnectionState = { views: Set<string>; lengths: Map<string, Lengths>; stats: RowLengthStats };

/** What a connection did with its memory of row lengths since it first searched: the lengths it read from the tables'
 * document sizes, the rowids it forgot because their rows left a table (as the log of removed rows told it), and the
 * times it forgot a whole table's lengths (the log no longer reached back to what it knew). */
export type RowLengthStats = { read: number; forgotten: number; resets: number };

const states = new WeakMap<Db, ConnectionState>();

/** The best `limit` rows of the table for the phrases, best first, ties by rowid: what `SELECT rowid, bm25(t) ...
 * WHERE t MATCH '"w1" OR "w2" ...' ORDER BY bm25(t), rowid LIMIT ?` returns (on a table holding just its rows). */
export function bm25Top(db: Db, search: Bm25Search): Bm25Hit[] {
  const table = keywordTable(search.n, search.source);
  let state = states.get(db);
  if (!state) states.set(db, (state = { views: new Set(), lengths: new Map(), stats: { read: 0, forgotten: 0, resets: 0 } }));
  // Inside a transaction of this connection's, the table may hold writes not yet in its pages: FTS5 reads them. So it
  // does for a table whose on-disk format the page reader does not know.
  const view = viewPostings(state);
  const outer = db.inTransaction;
  const postings: PostingsReader = outer ? view : (d, t, terms) => termPostings(d, t, terms) ?? view(d, t, terms);
  // One read transaction: postings, statistics and lengths from the same snapshot. Lengths read inside a transaction
  // of the caller's may be of writes it has not committed, and may never commit: they are not remembered.
  return db.transaction(() => score(db, state, table, search, postings, !outer))();
}

/** The connection's row length statistics so far (all 0 before its first search). */
export function rowLengthStats(db: Db): RowLengthStats {
  return { ...(states.get(db)?.stats ?? { read: 0, forgotten: 0, resets: 0 }) };
}

type PostingsReader = (db: Db, table: string, terms: readonly string[]) => Map<string, Postings>;

function score(
  db: Db, state: ConnectionState, table: string, { n, source, phrases, limit }: Bm25Search, read: PostingsReader, remember: boolean,
): Bm25Hit[] {
  const stats = keywordStatsOf(db, n, source);
  if (!stats) return [];
  if (stats.rows === null || stats.tokens === null) throw new Error(`keyword table ${table} is not counted yet (the store counts it on open)`);
  // A phrase of no term (a word of separators alone) matches no row and adds 0.0 to every sum, in FTS5 too.
  const kept = phrases.filter((p) => p.length > 0);
  const nRow = stats.rows;
  if (nRow <= 0 || kept.length === 0 || limit <= 0) return [];
  const avgdl = stats.tokens / nRow;

  const terms = kept.filter((p) => p.length === 1).map((p) => p[0]);
  const postings = terms.length ? read(db, table, terms) : new Map<string, Postings>();
  const lists = kept.map((p) => (p.length === 1 ? postings.get(p[0])! : phrasePostings(db, state, table, p)));
  // The logarithm is SQLite's (the C library's, as FTS5's): V8's Math.log differs from it in the last bit for some
  // arguments, which would reorder rows whose scores tie in FTS5.
  const ln = prepared(db, 'SELECT ln(?) AS v');
  const idf = lists.map((p) => {
    const x = (ln.get((nRow - p.docs.length + 0.5) / (p.docs.length + 0.5)) as { v: number }).v;
    return x <= 0.0 ? 1e-6 : x;
  });
  const sizes = lengthsOf(db, state, { n, source }, stats.removals, lists, remember);

  // Merge the postings in rowid order; each row's sum is added up in query order, as FTS5 does (a term the row lacks
  // adds 0.0, which changes no sum, so it is skipped).
  const top = new TopK(limit, 'double');
  const docs = lists.map((p) => p.docs);
  const tfs = lists.map((p) => p.tfs);
  const ends = lists.map((p) => p.docs.length);
  const heads = new Int32Array(lists.length);
  for (;;) {
    let doc = Infinity;
    for (let i = 0; i < heads.length; i++) if (heads[i] < ends[i] && docs[i][heads[i]] < doc) doc = docs[i][heads[i]];
    if (doc === Infinity) break;
    const D = Math.max(0, sizes.get(doc));
    let sum = 0.0;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h >= ends[i] || docs[i][h] !== doc) continue;
      const f = tfs[i][h];
      heads[i] = h + 1;
      sum += idf[i] * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * D) / avgdl)));
    }
    top.push(sum, doc);
  }
  const { positions, scores } = top.sorted();
  return positions.map((rid, i) => ({ rid, s: -1.0 * scores[i] }));
}

/** Each term's postings through the table's fts5vocab view ('instance': one row per occurrence, grouped by row),
 * which FTS5 answers from its pages and its not yet written changes alike. */
const viewPostings = (state: ConnectionState): PostingsReader => (db, table, terms) => {
  const out = new Map<string, Postings>();
  for (const term of terms) if (!out.has(term)) out.set(term, postingsOf(instancesOf(db, state, table, term)));
  return out;
};

/** A phrase's postings: the rows holding its terms at consecutive positions, and how many times (each position where
 * the phrase starts), as FTS5 matches and counts a phrase; read from the term view, which has the positions. */
function phrasePostings(db: Db, state: ConnectionState, table: string, phrase: readonly string[]): Postings {
  const following = phrase.slice(1).map((term) => {
    const positions = new Map<number, Set<number>>();
    for (const { doc, offset } of instancesOf(db, state, table, term)) {
      let at = positions.get(doc);
      if (!at) positions.set(doc, (at = new Set()));
      at.add(offset);
    }
    return positions;
  });
  const starts = instancesOf(db, state, table, phrase[0]).filter(({ doc, offset }) =>
    following.every((positions, i) => positions.get(doc)?.has(offset + i + 1) === true));
  return postingsOf(starts);
}

type Instance = { doc: number; offset: number };

/** Every occurrence of the term in the table, in row order. */
function instancesOf(db: Db, state: ConnectionState, table: string, term: string): Instance[] {
  ensureTermView(db, state, table);
  return prepared(db, `SELECT doc, offset FROM temp.${table}_terms WHERE term = ?`).all(term) as Instance[];
}

/** Occurrences grouped by row: the rows, and how many occurrences each. */
function postingsOf(instances: readonly Instance[]): Postings {
  const docs: number[] = [];
  const tfs: number[] = [];
  for (const { doc } of instances) {
    if (docs.length && docs[docs.length - 1] === doc) tfs[tfs.length - 1]++;
    else {
      docs.push(doc);
      tfs.push(1);
    }
  }
  return { docs, tfs };
}

/** The lengths (in tokens) of the rows in the postings, remembered per connection and table (a row's length changes
 * only by leaving the table: deleted, or re-indexed with new text). When the table's removals count moved on since,
 * the rows that left it are read from the log of removed rows and forgotten, the rest kept; when the log no longer
 * reaches back that far, every length of the table is. Those not known are read from the table's document sizes in
 * one query. With `remember` false nothing is remembered from this search, nor forgotten. */
function lengthsOf(
  db: Db, state: ConnectionState, ref: { n: number; source: KeywordSource }, removals: number, lists: Postings[], remember: boolean,
): RowLengths {
  const table = keywordTable(ref.n, ref.source);
  const sizes = remember ? rememberedLengths(db, state, ref, removals) : new RowLengths();
  const missing: number[] = [];
  for (const p of lists) for (const doc of p.docs) if (sizes.get(doc) < 0) missing.push(doc);
  if (missing.length) {
    const rows = prepared(db, `SELECT id, sz FROM ${table}_docsize WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify([...new Set(missing)])) as Array<{ id: number; sz: Uint8Array }>;
    for (const r of rows) sizes.set(r.id, readVarint(r.sz, { i: 0 }));
    state.stats.read += rows.length;
  }
  return sizes;
}

/** The connection's row lengths of the table, brought up to its removals count. */
function rememberedLengths(db: Db, state: ConnectionState, { n, source }: { n: number; source: KeywordSource }, removals: number): RowLengths {
  const table = keywordTable(n, source);
  let known = state.lengths.get(table);
  if (known && known.removals !== removals) {
    const removed = keywordRowsRemovedSince(db, n, source, known.removals, removals);
    if (removed) {
      for (const rid of removed) known.sizes.forget(rid);
      state.stats.forgotten += removed.length;
      known.removals = removals;
    } else {
      state.stats.resets++;
      known = undefined;
    }
  }
  known ??= { removals, sizes: new RowLengths() };
  state.lengths.delete(table); // re-inserted last: the most recently used table
  state.lengths.set(table, known);
  if (state.lengths.size > MAX_TABLES) state.lengths.delete(state.lengths.keys().next().value!);
  return known.sizes;
}

/** Row lengths by rowid, in pages of 4096 rowids: a doclist's rowids ascend, so one page serves a run of lookups (a
 * Map of every row costs more per lookup than the rest of the scoring together). */
class RowLengths {
  private readonly pages = new Map<number, Int32Array>();
  private lastKey = -1;
  private last: Int32Array | undefined;

  /** The row's length, or -1 when not known. */
  get(rowid: number): number {
    const page = this.page(Math.floor(rowid / 4096), false);
    return page ? page[rowid % 4096] : -1;
  }

  set(rowid: number, length: number): void {
    this.page(Math.floor(rowid / 4096), true)![rowid % 4096] = length;
  }

  forget(rowid: number): void {
    const page = this.page(Math.floor(rowid / 4096), false);
    if (page) page[rowid % 4096] = -1;
  }

  private page(key: number, create: boolean): Int32Array | undefined {
    if (key === this.lastKey) return this.last;
    let page = this.pages.get(key);
    if (!page && create) this.pages.set(key, (page = new Int32Array(4096).fill(-1)));
    if (page) {
      this.lastKey = key;
      this.last = page;
    }
    return page;
  }
}

/** The table's term view (fts5vocab 'instance': term, row, column, offset), made once per connection in its temp
 * schema; a reader connection is query-only, which covers temp too, so the switch is lifted for that one statement. */
function ensureTermView(db: Db, state: ConnectionState, table: string): void {
  if (state.views.has(table)) return;
  const queryOnly = db.pragma('query_only', { simple: true }) === 1;
  if (queryOnly) db.pragma('query_only = 0');
  try {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_terms USING fts5vocab(main, ${table}, instance)`);
  } finally {
    if (queryOnly) db.pragma('query_only = 1');
  }
  state.views.add(table);
}
