// BM25 over a bank's FTS5 keyword table, computed here rather than by FTS5's bm25(). FTS5 evaluates an OR query row
// by row and reads every matching row's length from disk (about 1.4 us a row: tens of milliseconds when the query's
// words are common in a 100k-fact bank). Here each word's postings are decoded straight from the table's segment
// pages (fts-doclists.ts) and kept per connection (term-lists.ts), row lengths come from the table's window blobs
// (row-lengths.ts), and rows are scored window by window, best bound first, skipping the windows that cannot reach
// the best rows. The sum is FTS5's own: same k1 and b, same idf and its floor, same order of additions, so the ranking
// (ties by rowid) and the scores are bm25()'s, which the tests check. One difference, on purpose: the row count and
// average row length are the table's exact totals, kept by the store (keyword-tables.ts), not FTS5's averages record,
// which a contentless_delete table never corrects for the rows deleted from it. So the scores are those bm25() gives
// on a table holding just the rows this one holds: equal to the table's own bm25() until a row leaves it, and after
// that, equal to those of a copy of the bank built afresh (an import, say).
import { TopK } from '../../core/index.ts';
import type { Db } from './database.ts';
import { tableSegments, type Postings, type PostingsView } from './fts-doclists.ts';
import { KEYWORD_WINDOW, keywordRowsRemovedSince, keywordStatsOf, keywordTable, type KeywordSource } from './keyword-tables.ts';
import { LengthReader, RowLengths } from './row-lengths.ts';
import { termList, withWindows, type LengthOf, type TermList } from './term-lists.ts';
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
type ConnectionState = { views: Set<string>; lengths: Map<string, Lengths>; stats: RowLengthStats; windows: WindowStats };

/** What a connection did with its memory of row lengths since it first searched: the lengths it read from the tables'
 * document sizes, the rowids it forgot because their rows left a table (as the log of removed rows told it), and the
 * times it forgot a whole table's lengths (the log no longer reached back to what it knew). */
export type RowLengthStats = { read: number; forgotten: number; resets: number };
/** How many rowid windows the connection's searches scored, and how many they skipped by their bounds. */
export type WindowStats = { scored: number; skipped: number };

const states = new WeakMap<Db, ConnectionState>();

/** The best `limit` rows of the table for the phrases, best first, ties by rowid: what `SELECT rowid, bm25(t) ...
 * WHERE t MATCH '"w1" OR "w2" ...' ORDER BY bm25(t), rowid LIMIT ?` returns (on a table holding just its rows). */
export function bm25Top(db: Db, search: Bm25Search): Bm25Hit[] {
  const table = keywordTable(search.n, search.source);
  let state = states.get(db);
  if (!state)
    states.set(
      db,
      (state = { views: new Set(), lengths: new Map(), stats: { read: 0, forgotten: 0, resets: 0 }, windows: { scored: 0, skipped: 0 } }),
    );
  // Inside a transaction of this connection's, the table may hold writes not yet in its pages: FTS5 reads them. So it
  // does for a table whose on-disk format the page reader does not know.
  const view = viewPostings(state);
  const outer = db.inTransaction;
  const lists: ListsReader = (d, t, terms, lengthOf) => {
    const segments = outer ? null : tableSegments(d, t);
    if (!segments) {
      const read = view(d, t, terms);
      return new Map([...read].map(([term, p]) => [term, withWindows(p, lengthOf)]));
    }
    return new Map(terms.map((term) => [term, termList(d, t, segments, term, lengthOf)]));
  };
  // One read transaction: postings, statistics and lengths from the same snapshot. Lengths read inside a transaction
  // of the caller's may be of writes it has not committed, and may never commit: they are not remembered.
  return db.transaction(() => score(db, state, table, search, lists, !outer))();
}

/** The rows a BM25 search keeps: those a check query passes (its rows: rid, id, and any other columns it selects). */
export interface Bm25Passing {
  search: Omit<Bm25Search, 'limit'>;
  k: number;
  /** Reads the passing rows among the rids of a JSON array given as its first parameter, then `params`. */
  check: string;
  params: unknown[];
}

/** A passing row: its columns but the rid, and its score (bm25(): higher is better). */
export interface PassingHit {
  id: string;
  score: number;
  [column: string]: unknown;
}

/**
 * The k best rows by BM25 that the check passes, in BM25 order (ties by rowid): the table's best rows alone first, then
 * those passing among them, so no table lookup for every matching row (which in a large bank costs as much as BM25
 * itself). Exact: once k rows passed, reading more rows would change nothing; when few pass (a narrow filter), more
 * rows are read, up to all of them. One function for both places a search runs (this thread or a reader thread).
 */
export function bm25Passing(db: Db, { search, k, check, params }: Bm25Passing): PassingHit[] {
  for (let fetch = Math.max(2 * k, k + 16); ; fetch *= 4) {
    const top = bm25Top(db, { ...search, limit: fetch });
    const rows = prepared(db, check).all(JSON.stringify(top.map((r) => r.rid)), ...params) as Array<{ rid: number; id: string }>;
    const passing = new Map(rows.map(({ rid, ...columns }) => [rid, columns]));
    const out: PassingHit[] = [];
    for (const r of top) {
      const columns = passing.get(r.rid);
      if (columns !== undefined && out.length < k) out.push({ ...columns, score: -r.s });
    }
    if (out.length >= k || top.length < fetch) return out;
  }
}

/** The connection's row length statistics so far (all 0 before its first search). */
export function rowLengthStats(db: Db): RowLengthStats {
  return { ...(states.get(db)?.stats ?? { read: 0, forgotten: 0, resets: 0 }) };
}

/** The connection's windows scored and skipped so far. */
export function windowStats(db: Db): WindowStats {
  return { ...(states.get(db)?.windows ?? { scored: 0, skipped: 0 }) };
}

type ListsReader = (db: Db, table: string, terms: readonly string[], lengthOf: LengthOf) => Map<string, TermList>;

/** What one row holding a term `f` times scores for it, in a row of `D` tokens (FTS5's formula, term by term). */
const termScore = (idf: number, f: number, D: number, avgdl: number): number =>
  idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * D) / avgdl)));

function score(
  db: Db,
  state: ConnectionState,
  table: string,
  { n, source, phrases, limit }: Bm25Search,
  read: ListsReader,
  remember: boolean,
): Bm25Hit[] {
  const stats = keywordStatsOf(db, n, source);
  if (!stats) return [];
  if (stats.rows === null || stats.tokens === null)
    throw new Error(`keyword table ${table} is not counted yet (the store counts it on open)`);
  // A phrase of no term (a word of separators alone) matches no row and adds 0.0 to every sum, in FTS5 too.
  const kept = phrases.filter((p) => p.length > 0);
  const nRow = stats.rows;
  if (nRow <= 0 || kept.length === 0 || limit <= 0) return [];
  const avgdl = stats.tokens / nRow;

  const sizes = remember ? rememberedLengths(db, state, { n, source }, stats.removals) : new RowLengths();
  const lengths = new LengthReader(db, { n, source, name: table }, sizes, (count) => (state.stats.read += count));
  const lengthOf: LengthOf = (rowid) => lengths.length(rowid);
  const terms = kept.filter((p) => p.length === 1).map((p) => p[0]);
  const byTerm = terms.length ? read(db, table, terms, lengthOf) : new Map<string, TermList>();
  const lists = kept.map((p) => (p.length === 1 ? byTerm.get(p[0])! : withWindows(phrasePostings(db, state, table, p), lengthOf)));
  // The logarithm is SQLite's (the C library's, as FTS5's): V8's Math.log differs from it in the last bit for some
  // arguments, which would reorder rows whose scores tie in FTS5.
  const ln = prepared(db, 'SELECT ln(?) AS v');
  const idf = lists.map((p) => {
    const x = (ln.get((nRow - p.docs.length + 0.5) / (p.docs.length + 0.5)) as { v: number }).v;
    return x <= 0.0 ? 1e-6 : x;
  });
  const top = new TopK(limit, 'double');

  // The windows of rowids holding any of the rows, each with a bound on what its rows can score: the sum, term by
  // term, of the best that term's pairs (count, length) of the window score (a term a row lacks would add 0.0, and
  // more of a term or a shorter row never scores less, in floating point too). Best bounds first: once the list is
  // full, a window whose bound is below its last score (or equal, with rowids all after that row's) cannot enter it.
  const windows = windowBounds(lists, idf, avgdl);
  let scored = 0;
  const scratch = scratchOf();
  for (const { w, bound } of windows) {
    const worst = top.worst();
    if (worst && (bound < worst.score || (bound === worst.score && w * KEYWORD_WINDOW > worst.position))) {
      if (bound < worst.score) break;
      continue;
    }
    scoreWindow(lists, idf, avgdl, lengths, w, top, scratch);
    scored++;
  }
  state.windows.scored += scored;
  state.windows.skipped += windows.length - scored;
  const { positions, scores } = top.sorted();
  return positions.map((rid, i) => ({ rid, s: -1.0 * scores[i] }));
}

/** Every window holding rows of the lists, with the bound on its rows' sums, best first (ties: lower window first). */
function windowBounds(lists: readonly TermList[], idf: readonly number[], avgdl: number): Array<{ w: number; bound: number }> {
  const best = new Map<number, Float64Array>();
  lists.forEach((list, i) => {
    const { ids, pairStarts, pairTf, pairD } = list.windows;
    for (let k = 0; k < ids.length; k++) {
      let per = best.get(ids[k]);
      if (!per) best.set(ids[k], (per = new Float64Array(lists.length)));
      let most = 0.0;
      for (let p = pairStarts[k]; p < pairStarts[k + 1]; p++) most = Math.max(most, termScore(idf[i], pairTf[p], pairD[p], avgdl));
      per[i] = most;
    }
  });
  const out: Array<{ w: number; bound: number }> = [];
  for (const [w, per] of best) {
    let bound = 0.0;
    for (let i = 0; i < per.length; i++) if (per[i] > 0) bound += per[i];
    out.push({ w, bound });
  }
  return out.sort((a, b) => b.bound - a.bound || a.w - b.w);
}

/** Sums per row of a window, reused from window to window. */
type Scratch = { sums: Float64Array; seen: Uint8Array; touched: Int32Array };

const scratchOf = (): Scratch => ({
  sums: new Float64Array(KEYWORD_WINDOW),
  seen: new Uint8Array(KEYWORD_WINDOW),
  touched: new Int32Array(KEYWORD_WINDOW),
});

/** Scores the rows of one window. Each row's sum is added up in query order, as FTS5 does (a term the row lacks adds
 * 0.0, which changes no sum, so it is skipped): list by list, in query order, into the row's slot of the window. Rows
 * whose length is not known (a table whose windows are not written) are summed once their lengths are read. */
function scoreWindow(
  lists: readonly TermList[],
  idf: readonly number[],
  avgdl: number,
  lengths: LengthReader,
  w: number,
  top: TopK,
  scratch: Scratch,
): void {
  const base = w * KEYWORD_WINDOW;
  const page = lengths.sizes.window(w);
  const { sums, seen, touched } = scratch;
  let count = 0;
  const waiting: number[] = [];
  for (let i = 0; i < lists.length; i++) {
    const { docs, tfs, windows } = lists[i];
    const k = findWindow(windows.ids, w);
    if (k < 0) continue;
    const weight = idf[i];
    for (let h = windows.starts[k], end = windows.starts[k + 1]; h < end; h++) {
      const slot = docs[h] - base;
      let D = page[slot];
      if (D < 0 && lengths.fill(w)) D = page[slot];
      if (D < 0) {
        if (seen[slot] !== 2) waiting.push(docs[h]);
        seen[slot] = 2;
        continue;
      }
      if (seen[slot] === 0) {
        seen[slot] = 1;
        touched[count++] = slot;
        sums[slot] = 0.0;
      }
      const f = tfs[h];
      sums[slot] += weight * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * D) / avgdl)));
    }
  }
  for (let t = 0; t < count; t++) {
    const slot = touched[t];
    seen[slot] = 0;
    top.push(sums[slot], base + slot);
  }
  if (waiting.length === 0) return;
  lengths.readRows(waiting);
  for (const doc of waiting) {
    seen[doc - base] = 0;
    const D = Math.max(0, page[doc - base]);
    let sum = 0.0;
    for (let i = 0; i < lists.length; i++) {
      const at = indexOf(lists[i].docs, doc);
      if (at >= 0) sum += termScore(idf[i], lists[i].tfs[at], D, avgdl);
    }
    top.push(sum, doc);
  }
}

/** The position of the value in the ascending array, or -1. */
function indexOf(values: Float64Array, value: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] === value) return mid;
    if (values[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The index of window w in the ascending ids, or -1. */
const findWindow = (ids: Float64Array, w: number): number => indexOf(ids, w);

/** Each term's postings through the table's fts5vocab view ('instance': one row per occurrence, grouped by row),
 * which FTS5 answers from its pages and its not yet written changes alike. */
const viewPostings =
  (state: ConnectionState) =>
  (db: Db, table: string, terms: readonly string[]): Map<string, PostingsView> => {
    const out = new Map<string, PostingsView>();
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
    following.every((positions, i) => positions.get(doc)?.has(offset + i + 1) === true),
  );
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

/** The connection's row lengths of the table, brought up to its removals count. */
function rememberedLengths(
  db: Db,
  state: ConnectionState,
  { n, source }: { n: number; source: KeywordSource },
  removals: number,
): RowLengths {
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
