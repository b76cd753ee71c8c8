// A term's postings read straight from an FTS5 table's segment pages (its %_data and %_idx tables), in the on-disk
// format SQLite documents at the top of fts5_index.c: the structure record lists the segments, newest first by level;
// each segment is a run of leaf pages holding terms in order, each followed by its doclist (rowids, delta-encoded,
// each with its position list), which may run on over the following pages. Going through FTS5 itself (an fts5vocab
// view, or a MATCH) costs a virtual-table row per posting, a fraction of a microsecond each; decoding the pages here
// costs tens of nanoseconds. Rows deleted from a contentless_delete table are tombstones kept per segment; a row in
// several segments counts from the newest, as in FTS5. The tests hold the result to the fts5vocab view's, posting for
// posting, through updates, deletes, merges and doclists spanning pages.
//
// Call inside a read transaction (the structure and the pages must be of one snapshot), and not on a connection with
// uncommitted writes to the table: those sit in FTS5's in-memory hash, not yet in the pages.
import type { Db } from './database.ts';
import { prepared } from './statements.ts';

/** Rows holding a term, ascending, with how often each holds it. */
export type Postings = { docs: number[]; tfs: number[] };
/** Postings read only (decoded ones, or typed arrays a connection keeps). */
export type PostingsView = { readonly docs: ArrayLike<number>; readonly tfs: ArrayLike<number> };

/** A segment of the table: its id, first and last leaf pages, tombstones; `key` names its postings for as long as they
 * stay what they are (null: they may still change, as in a segment an incremental merge reads from or writes to). */
export type Segment = { id: number; first: number; last: number; tombstones: Set<number> | null; key: string | null };

const STRUCTURE_ROWID = 10;
/** %_data rowids: segment id above 37 bits (a doclist-index flag, 5 bits of height, 31 bits of page number). */
const PAGE_BITS = 37n;
/** Tombstone pages of segment s are numbered as pages of segment s + 2^16. */
const TOMBSTONE_SEGMENT = 1 << 16;
/** Terms of the main index are stored after this byte (prefix indexes use others). */
const MAIN_PREFIX = 0x30;

const pageRowid = (segment: number, page: number): bigint => (BigInt(segment) << PAGE_BITS) + BigInt(page);

/** Versions of the FTS5 on-disk format this reader knows (SQLite's FTS5_CURRENT_VERSION and its secure-delete
 * variant); a table of any other it leaves to FTS5. */
const KNOWN_FORMATS = new Set([4, 5]);

/** Each term's postings in the table (every term once, whatever the repeats); null when the table's format version
 * is not one this reader knows. */
export function termPostings(db: Db, table: string, terms: readonly string[]): Map<string, PostingsView> | null {
  const segments = tableSegments(db, table);
  if (!segments) return null;
  const out = new Map<string, PostingsView>();
  for (const term of terms) {
    if (out.has(term)) continue;
    out.set(
      term,
      newestWins(
        segments,
        segments.map((s) => segmentTermPostings(db, table, s, term)),
      ),
    );
  }
  return out;
}

/** The table's segments, newest first; null when its format version is not one this reader knows. */
export function tableSegments(db: Db, table: string): Segment[] | null {
  const version = prepared(db, `SELECT v FROM ${table}_config WHERE k = 'version'`).pluck().get();
  return KNOWN_FORMATS.has(Number(version)) ? structureOf(db, table) : null;
}

/** The term's doclist in one segment (rowids ascending; a tf of 0 is a delete marker). */
export function segmentTermPostings(db: Db, table: string, segment: Segment, term: string): Postings {
  return segmentPostings(db, table, segment, Buffer.concat([Buffer.from([MAIN_PREFIX]), Buffer.from(term, 'utf8')]));
}

/** The segments, newest first (levels from 0, each level's segments from its newest), with their tombstones. */
function structureOf(db: Db, table: string): Segment[] {
  const row = prepared(db, `SELECT block FROM ${table}_data WHERE id = ?`).pluck().get(STRUCTURE_ROWID) as Uint8Array | undefined;
  if (!row) return [];
  const at = { i: 4 }; // the configuration cookie
  const v2 = row[4] === 0xff && row[5] === 0 && row[6] === 0 && row[7] === 1;
  if (v2) at.i = 8;
  const levels = readVarint(row, at);
  readVarint(row, at); // segments in all
  readVarint(row, at); // write counter
  const newestFirst: Segment[] = [];
  let merging = false; // the level before was in an incremental merge, which writes its output to this level
  for (let level = 0; level < levels; level++) {
    const inMerge = readVarint(row, at) > 0; // segments in an ongoing merge
    const count = readVarint(row, at);
    const ofLevel: Segment[] = [];
    for (let s = 0; s < count; s++) {
      const id = readVarint(row, at);
      const first = readVarint(row, at);
      const last = readVarint(row, at);
      let tombstonePages = 0;
      let origin = '';
      if (v2) {
        const lower = readVarint(row, at);
        const upper = readVarint(row, at);
        tombstonePages = readVarint(row, at);
        readVarint(row, at); // tombstone entries
        const entries = readVarint(row, at);
        // Ids are reused once a merge frees them; the write counters the segment's rows came from are not.
        origin = `${lower}-${upper}-${entries}`;
      }
      const key = v2 && !inMerge && !merging ? `${id}:${first}:${last}:${origin}` : null;
      ofLevel.push({ id, first, last, tombstones: tombstonePages > 0 ? tombstonesOf(db, table, id, tombstonePages) : null, key });
    }
    newestFirst.push(...ofLevel.reverse());
    merging = inMerge;
  }
  return newestFirst;
}

/** The rowids of a segment's tombstone hash pages: an 8-byte header (key size, a flag for rowid 0), then slots of 4
 * or 8 bytes, big-endian, 0 when empty. */
function tombstonesOf(db: Db, table: string, segment: number, pages: number): Set<number> {
  const read = prepared(db, `SELECT block FROM ${table}_data WHERE id = ?`).pluck();
  const out = new Set<number>();
  for (let p = 0; p < pages; p++) {
    const page = read.get(pageRowid(segment + TOMBSTONE_SEGMENT, p)) as Uint8Array | undefined;
    if (!page || page.length < 8) continue;
    if (p === 0 && page[1]) out.add(0);
    const size = page[0] === 4 ? 4 : 8;
    const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
    for (let at = 8; at + size <= page.length; at += size) {
      const rowid = size === 4 ? view.getUint32(at) : view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
      if (rowid !== 0) out.add(rowid);
    }
  }
  return out;
}

/** The term's doclist in one segment, as FTS5 wrote it: rowids with their position counts (0: a delete marker). */
function segmentPostings(db: Db, table: string, segment: Segment, key: Uint8Array): Postings {
  const found = { docs: [] as number[], tfs: [] as number[] };
  const indexed = prepared(db, `SELECT pgno FROM ${table}_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1`)
    .pluck()
    .get(segment.id, key) as number | undefined;
  const start = Math.max(indexed === undefined ? 1 : Math.floor(indexed / 2), segment.first); // the low bit: has a doclist index
  const pages = prepared(db, `SELECT block FROM ${table}_data WHERE id BETWEEN ? AND ? ORDER BY id`).pluck();
  const reader = new DoclistReader(found);
  for (const page of pages.iterate(pageRowid(segment.id, start), pageRowid(segment.id, segment.last)) as IterableIterator<Uint8Array>) {
    const going = reader.started ? reader.continueOn(page) : reader.seek(page, key);
    if (!going) break;
  }
  return found;
}

/** Decodes one doclist page by page: found on the first page by its term, then run on over the pages that follow
 * until a page's terms begin (the next term's doclist) or the segment ends. */
class DoclistReader {
  started = false;
  private rowid = 0;
  /** Bytes of the current position list still on pages to come, and how that list is being counted. */
  private remaining = 0;
  private readonly count = { continued: false, column: false };

  constructor(private readonly out: Postings) {}

  /** Finds the term on the page where the index says it would start; false when it is not there. */
  seek(a: Uint8Array, key: Uint8Array): boolean {
    const size = a.length;
    const leafEnd = u16(a, 2);
    if (leafEnd >= size) return false; // no term starts on this page
    const at = { i: leafEnd };
    let termStart = readVarint(a, at);
    let i = termStart;
    let matched = 0;
    let keep = 0;
    for (;;) {
      const x = { i };
      const added = readVarint(a, x);
      i = x.i;
      if (keep < matched) return false; // this term is past the key
      if (keep === matched) {
        const n = Math.min(added, key.length - matched);
        let j = 0;
        while (j < n && a[i + j] === key[matched + j]) j++;
        matched += j;
        if (matched === key.length) {
          if (j !== added) return false;
          const docStart = i + added;
          const docEnd = at.i < size ? termStart + readVarint(a, at) : Infinity;
          this.started = true;
          const first = { i: docStart };
          this.rowid = readVarint(a, first);
          return this.entries(a, first.i, Math.min(docEnd, leafEnd), leafEnd) && docEnd === Infinity;
        }
        if (j < added && a[i + j] > key[matched]) return false;
      }
      if (at.i >= size) return false; // the page's last term is before the key
      termStart += readVarint(a, at);
      const y = { i: termStart };
      keep = readVarint(a, y);
      i = y.i;
    }
  }

  /** Runs the doclist on over the next page; false once it has ended. */
  continueOn(a: Uint8Array): boolean {
    const leafEnd = u16(a, 2);
    const firstRowid = u16(a, 0);
    const hasTerms = a.length > leafEnd;
    if (this.remaining > 0) {
      const take = Math.min(this.remaining, leafEnd - 4);
      this.out.tfs[this.out.tfs.length - 1] += this.positions(a, 4, 4 + take);
      this.remaining -= take;
      if (this.remaining > 0) return true;
    }
    if (firstRowid !== 0 && firstRowid < leafEnd) {
      const at = { i: firstRowid };
      this.rowid = readVarint(a, at); // the first rowid on a page is written whole
      const end = hasTerms ? readVarint(a, { i: leafEnd }) : leafEnd;
      return this.entries(a, at.i, end, leafEnd) && !hasTerms;
    }
    return !hasTerms;
  }

  /** The entries from `i` (just past a rowid) up to `end`; false when the doclist ended before the page did. */
  private entries(a: Uint8Array, i: number, end: number, leafEnd: number): boolean {
    const { docs, tfs } = this.out;
    const at = { i };
    for (;;) {
      const size = readVarint(a, at) >>> 1; // bytes of the position list; the low bit is the delete flag
      const listEnd = at.i + size;
      this.count.continued = false;
      this.count.column = false;
      docs.push(this.rowid);
      tfs.push(this.positions(a, at.i, Math.min(listEnd, leafEnd)));
      if (listEnd > leafEnd) {
        this.remaining = listEnd - leafEnd;
        return true;
      }
      at.i = listEnd;
      if (at.i >= end) return end >= leafEnd;
      this.rowid += readVarint(a, at);
    }
  }

  /** Positions in a stretch of a position list: its varints, less column markers (0x01, then the column). */
  private positions(a: Uint8Array, from: number, to: number): number {
    const c = this.count;
    let n = 0;
    for (let i = from; i < to; i++) {
      const b = a[i];
      if (b & 0x80) {
        c.continued = true;
        continue;
      }
      const single = !c.continued;
      c.continued = false;
      if (c.column) c.column = false;
      else if (single && b === 1) c.column = true;
      else n++;
    }
    return n;
  }
}

/** One list from the segments' lists: each row as the newest segment holding it has it, unless that segment's
 * tombstones name the row or its entry has no positions (a delete marker). */
export function newestWins(segments: readonly Segment[], lists: readonly PostingsView[]): PostingsView {
  const live = lists.map((l, s) => ({ l, s })).filter(({ l }) => l.docs.length > 0);
  const out: Postings = { docs: [], tfs: [] };
  /** Keeps the row as the segment has it, unless it is a delete marker or one of the segment's tombstones. */
  const take = (s: number, doc: number, tf: number): void => {
    if (tf === 0 || segments[s].tombstones?.has(doc)) return;
    out.docs.push(doc);
    out.tfs.push(tf);
  };
  // Segments written at different times mostly hold disjoint ranges of rows: then no row is in two of them.
  const byFirst = [...live].sort((x, y) => x.l.docs[0] - y.l.docs[0]);
  if (byFirst.every(({ l }, k) => k === 0 || byFirst[k - 1].l.docs[byFirst[k - 1].l.docs.length - 1] < l.docs[0])) {
    if (byFirst.length === 1 && !segments[byFirst[0].s].tombstones && !Array.prototype.includes.call(byFirst[0].l.tfs, 0))
      return byFirst[0].l;
    for (const { l, s } of byFirst) for (let i = 0; i < l.docs.length; i++) take(s, l.docs[i], l.tfs[i]);
    return out;
  }
  const heads = live.map(() => 0);
  for (;;) {
    let doc = Infinity;
    let winner = -1;
    for (let k = 0; k < live.length; k++) {
      const d = heads[k] < live[k].l.docs.length ? live[k].l.docs[heads[k]] : Infinity;
      if (d < doc) {
        doc = d;
        winner = k;
      }
    }
    if (winner < 0) break;
    take(live[winner].s, doc, live[winner].l.tfs[heads[winner]]);
    for (let k = 0; k < live.length; k++) if (heads[k] < live[k].l.docs.length && live[k].l.docs[heads[k]] === doc) heads[k]++;
  }
  return out;
}

const u16 = (a: Uint8Array, i: number): number => (a[i] << 8) | a[i + 1];

/** An SQLite varint (big-endian groups of 7 bits, the high bit set on all but the last; a 9th byte holds 8 bits), as
 * FTS5 writes rowids, sizes, counts and positions. */
export function readVarint(bytes: Uint8Array, at: { i: number }): number {
  let v = 0;
  for (let k = 0; k < 9; k++) {
    const byte = bytes[at.i++];
    if (k === 8) return v * 256 + byte;
    v = v * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) return v;
  }
  return v;
}
