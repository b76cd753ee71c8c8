// A connection's memory of decoded postings, and the per-window figures BM25 skips by. Decoding a common word's
// doclist from a large table's pages costs tens of milliseconds (about 0.5 us a posting at a million rows) and is the
// same work every time: an FTS5 segment's pages never change once written (rows leaving it become tombstones, and
// merges write new segments), so a segment's postings of a term are kept under the segment's identity (its id, pages
// and the write counters its rows came from) and reused until the segment is merged away. The list a search scores
// (every segment's postings, newest first, less tombstones) is kept too, for as long as the table's segments and their
// tombstones stay as they were. Segments an incremental merge is still reading or writing are never kept.
import type { Db } from './database.ts';
import { newestWins, segmentTermPostings, type PostingsView, type Segment } from './fts-doclists.ts';
import { KEYWORD_WINDOW } from './keyword-tables.ts';

/** A term's rows (ascending) and how often each holds it, with what each rowid window holds of them. */
export type TermList = { docs: Float64Array; tfs: Int32Array; windows: Windows };

/** The windows (rowid >> KEYWORD_WINDOW_BITS) holding the rows, ascending; the first posting of each, and one past the
 * last (starts has one entry more than ids); and for each, the counts and lengths of its rows that no other of its
 * rows beats on both (more of the term, fewer tokens): the best any of its rows can score for the term is one of
 * those pairs' (pairs of window k: pairStarts[k] to pairStarts[k + 1]). */
export type Windows = { ids: Float64Array; starts: Int32Array; pairStarts: Int32Array; pairTf: Int32Array; pairD: Int32Array };

/** A row's length in tokens, -1 when not known (a length of 0 then stands in: it bounds every row). */
export type LengthOf = (rowid: number) => number;

/** Postings kept per connection at most (about 12 bytes each). */
const MAX_KEPT_POSTINGS = 4_000_000;
/** Scored lists kept per connection at most (each may share its arrays with a kept segment's). */
const MAX_KEPT_LISTS = 256;
/** Shorter doclists are decoded afresh each time: cheap, and they would only churn the memory. */
const MIN_KEPT_POSTINGS = 256;

type Memory = {
  /** Segment postings by table, segment key and term; Map order is use order (least recently used first). */
  segments: Map<string, PostingsView>;
  kept: number;
  /** The scored list by table and term, with the segments and tombstones it was made from. */
  lists: Map<string, { signature: string; list: TermList }>;
  /** The windows of kept segment postings (they never change, nor do the lengths of the rows still in them). */
  windows: WeakMap<PostingsView, Windows>;
  keptPostings: WeakSet<PostingsView>;
};

const memories = new WeakMap<Db, Memory>();

/** The term's postings in the table as a search scores them, from the connection's memory where it can. */
export function termList(db: Db, table: string, segments: readonly Segment[], term: string, lengthOf: LengthOf): TermList {
  let memory = memories.get(db);
  if (!memory)
    memories.set(db, (memory = { segments: new Map(), kept: 0, lists: new Map(), windows: new WeakMap(), keptPostings: new WeakSet() }));
  const listKey = `${table}\u0000${term}`;
  const signature = segments.every((s) => s.key !== null) ? segments.map((s) => `${s.key}/${s.tombstones?.size ?? 0}`).join(',') : null;
  const known = memory.lists.get(listKey);
  if (known && signature !== null && known.signature === signature) return known.list;
  const merged = newestWins(
    segments,
    segments.map((s) => segmentPostings(db, memory, table, s, term)),
  );
  let windows = memory.windows.get(merged);
  if (!windows) {
    const counted = windowsOf(merged, lengthOf);
    windows = counted.windows;
    // Bounds from lengths all known are kept with kept postings (a merged list is new, or one segment's own).
    if (counted.allKnown && memory.keptPostings.has(merged)) memory.windows.set(merged, windows);
  }
  const list: TermList = { ...typed(merged), windows };
  memory.lists.delete(listKey); // re-inserted last: the most recently used
  if (signature !== null) memory.lists.set(listKey, { signature, list });
  if (memory.lists.size > MAX_KEPT_LISTS) memory.lists.delete(memory.lists.keys().next().value!);
  return list;
}

/** Rows and counts as given (a phrase's, or a term's read through FTS5 itself), with their windows. */
export function withWindows(postings: PostingsView, lengthOf: LengthOf): TermList {
  return { ...typed(postings), windows: windowsOf(postings, lengthOf).windows };
}

/** The postings in typed arrays (as kept ones are already): scoring then reads one kind of array only. */
function typed({ docs, tfs }: PostingsView): { docs: Float64Array; tfs: Int32Array } {
  return {
    docs: docs instanceof Float64Array ? docs : Float64Array.from(docs),
    tfs: tfs instanceof Int32Array ? tfs : Int32Array.from(tfs),
  };
}

/** Pairs a window keeps at most; past that its best count and shortest length stand for them all (a looser bound). */
const MAX_PAIRS = 8;

function windowsOf({ docs, tfs }: PostingsView, lengthOf: LengthOf): { windows: Windows; allKnown: boolean } {
  const ids: number[] = [];
  const starts: number[] = [];
  const pairStarts: number[] = [];
  const pairTf: number[] = [];
  const pairD: number[] = [];
  let allKnown = true;
  let front: Array<[number, number]> = [];
  const close = (): void => {
    for (const [tf, D] of front) {
      pairTf.push(tf);
      pairD.push(D);
    }
    front = [];
  };
  for (let i = 0; i < docs.length; i++) {
    const w = Math.floor(docs[i] / KEYWORD_WINDOW);
    if (ids.length === 0 || ids[ids.length - 1] !== w) {
      close();
      ids.push(w);
      starts.push(i);
      pairStarts.push(pairTf.length);
    }
    const length = lengthOf(docs[i]);
    if (length < 0) allKnown = false;
    const tf = tfs[i];
    const D = Math.max(0, length);
    if (front.some(([t, d]) => t >= tf && d <= D)) continue; // beaten on both by a pair kept
    front = front.filter(([t, d]) => !(t <= tf && d >= D));
    front.push([tf, D]);
    if (front.length > MAX_PAIRS) front = [[Math.max(...front.map((p) => p[0])), Math.min(...front.map((p) => p[1]))]];
  }
  close();
  starts.push(docs.length);
  pairStarts.push(pairTf.length);
  return {
    windows: {
      ids: Float64Array.from(ids),
      starts: Int32Array.from(starts),
      pairStarts: Int32Array.from(pairStarts),
      pairTf: Int32Array.from(pairTf),
      pairD: Int32Array.from(pairD),
    },
    allKnown,
  };
}

function segmentPostings(db: Db, memory: Memory, table: string, segment: Segment, term: string): PostingsView {
  if (segment.key === null) return segmentTermPostings(db, table, segment, term);
  const key = `${table}\u0000${segment.key}\u0000${term}`;
  const known = memory.segments.get(key);
  if (known) {
    memory.segments.delete(key); // re-inserted last: the most recently used
    memory.segments.set(key, known);
    return known;
  }
  const read = segmentTermPostings(db, table, segment, term);
  if (read.docs.length < MIN_KEPT_POSTINGS || read.docs.length > MAX_KEPT_POSTINGS / 2) return read;
  const kept: PostingsView = { docs: Float64Array.from(read.docs), tfs: Int32Array.from(read.tfs) };
  memory.segments.set(key, kept);
  memory.keptPostings.add(kept);
  memory.kept += kept.docs.length;
  for (const [oldKey, old] of memory.segments) {
    if (memory.kept <= MAX_KEPT_POSTINGS) break;
    memory.segments.delete(oldKey);
    memory.kept -= old.docs.length;
  }
  return kept;
}
