// Row lengths (in tokens) of a keyword table as BM25 reads them: remembered per connection in pages of one rowid
// window each, and read, when not known, from the table's window blobs (keyword_windows, migration 017: a window's
// 1024 lengths in one row) or, for a table whose windows are not written yet, from FTS5's document sizes one row at a
// time. A row's length changes only by the row leaving the table (deleted, or re-indexed with new text); bm25.ts
// forgets the rows the log of removed rows names.
import type { Db } from './database.ts';
import { readVarint } from './fts-doclists.ts';
import { KEYWORD_WINDOW, keywordWindow, keywordWindowsWritten, type KeywordSource } from './keyword-tables.ts';
import { prepared } from './statements.ts';

/** Row lengths by rowid, in pages of one window: a doclist's rowids ascend, so one page serves a run of lookups (a Map
 * of every row costs more per lookup than the rest of the scoring together). -1: not known. */
export class RowLengths {
  private readonly pages = new Map<number, Int32Array>();
  private lastKey = -1;
  private last: Int32Array | undefined;

  get(rowid: number): number {
    const page = this.page(Math.floor(rowid / KEYWORD_WINDOW), false);
    return page ? page[rowid % KEYWORD_WINDOW] : -1;
  }

  set(rowid: number, length: number): void {
    this.page(Math.floor(rowid / KEYWORD_WINDOW), true)![rowid % KEYWORD_WINDOW] = length;
  }

  forget(rowid: number): void {
    const page = this.page(Math.floor(rowid / KEYWORD_WINDOW), false);
    if (page) page[rowid % KEYWORD_WINDOW] = -1;
  }

  /** The lengths of window w's rows as an array of KEYWORD_WINDOW (-1: not known), held on to by the memory. */
  window(w: number): Int32Array {
    return this.page(w, true)!;
  }

  /** Learns the window's lengths not known yet (its rows, not its empty slots); how many it learnt. */
  learnWindow(w: number, lengths: Uint32Array): number {
    const page = this.page(w, true)!;
    let learnt = 0;
    for (let i = 0; i < KEYWORD_WINDOW; i++) {
      if (page[i] < 0 && lengths[i] > 0) {
        page[i] = lengths[i];
        learnt++;
      }
    }
    return learnt;
  }

  private page(key: number, create: boolean): Int32Array | undefined {
    if (key === this.lastKey) return this.last;
    let page = this.pages.get(key);
    if (!page && create) this.pages.set(key, (page = new Int32Array(KEYWORD_WINDOW).fill(-1)));
    if (page) {
      this.lastKey = key;
      this.last = page;
    }
    return page;
  }
}

/** One search's access to a table's row lengths: the connection's memory, filled from the table as needed. */
export class LengthReader {
  /** Windows whose blob this search read already: a row still not known there is not in it. */
  private readonly read = new Set<number>();
  private readonly blobs: boolean;

  constructor(
    private readonly db: Db,
    private readonly table: { n: number; source: KeywordSource; name: string },
    readonly sizes: RowLengths,
    /** Counts the lengths learnt from the table. */
    private readonly learnt: (count: number) => void,
  ) {
    this.blobs = keywordWindowsWritten(db, table.n, table.source);
  }

  /** The row's length, read with its window's when not known and the windows are written; -1 if still not known. */
  length(rowid: number): number {
    const known = this.sizes.get(rowid);
    return known >= 0 || !this.fill(Math.floor(rowid / KEYWORD_WINDOW)) ? known : this.sizes.get(rowid);
  }

  /** Learns window w's lengths from its blob, once a search; false when nothing more can be learnt there. */
  fill(w: number): boolean {
    if (!this.blobs || this.read.has(w)) return false;
    this.read.add(w);
    const lengths = keywordWindow(this.db, this.table.n, this.table.source, w);
    if (lengths) this.learnt(this.sizes.learnWindow(w, lengths));
    return lengths !== null;
  }

  /** Reads the rows' lengths from the table's document sizes, in one query. */
  readRows(rowids: readonly number[]): void {
    if (rowids.length === 0) return;
    const rows = prepared(this.db, `SELECT id, sz FROM ${this.table.name}_docsize WHERE id IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(JSON.stringify(rowids)) as Array<[number, Uint8Array]>;
    for (const [id, sz] of rows) this.sizes.set(id, readVarint(sz, { i: 0 }));
    this.learnt(rows.length);
  }
}
