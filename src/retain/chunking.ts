// Splits an item's content into chunks of bounded size at paragraph, then sentence, boundaries. A code block, stack
// trace or table (src/text/markup.ts) is kept whole in one chunk, with the sentence introducing it ("Here is the
// fix:"), unless it is longer than a chunk: then it is cut between lines.
import { codeSpans, sentencesOf } from '../text/index.ts';

export const MAX_CHUNK_CHARS = 2_000;

export interface TextPiece {
  text: string;
  /** Offset of the piece in the item's content. */
  offset: number;
}

type Segment = { segment: string; index: number };

/** A stretch of the content as segments of at most max characters, cut after a line break where one allows. */
function* linesCut(content: string, start: number, end: number, max: number): Generator<Segment> {
  while (start < end) {
    let cut = Math.min(end, start + max);
    if (cut < end) {
      const nl = content.lastIndexOf('\n', cut - 1);
      if (nl >= start) cut = nl + 1;
    }
    yield { segment: content.slice(start, cut), index: start };
    start = cut;
  }
}

/** The content's sentences, each code block, trace or table as one segment (with the sentence just before it when
 * that one ends in a colon and both fit in a chunk), longer ones cut between lines. */
function* segmentsOf(content: string, max: number): Generator<Segment> {
  const spans = codeSpans(content);
  if (spans.length === 0) {
    yield* sentencesOf(content);
    return;
  }
  let k = 0;
  let held: Segment | null = null;
  let group: { start: number; end: number; span: number } | null = null;
  const closeGroup = function* (): Generator<Segment> {
    if (!group) return;
    if (held && held.index + held.segment.length === group.start && held.segment.trimEnd().endsWith(':') && group.end - held.index <= max) {
      group.start = held.index;
      held = null;
    }
    if (held) yield held;
    held = null;
    yield* linesCut(content, group.start, group.end, max);
    group = null;
  };
  for (const s of sentencesOf(content)) {
    while (k < spans.length && spans[k].end <= s.index) k++;
    const end = s.index + s.segment.length;
    if (k < spans.length && s.index >= spans[k].start) {
      if (group && group.span === k) group.end = end;
      else {
        yield* closeGroup();
        group = { start: s.index, end, span: k };
      }
      continue;
    }
    yield* closeGroup();
    if (held) yield held;
    held = s;
  }
  yield* closeGroup();
  if (held) yield held;
}

/** The content's chunks one at a time, as they are asked for: a caller may let other work run between them (cutting
 * a long item's sentences costs about a third of a second per megabyte). */
export function* textPieces(content: string, max = MAX_CHUNK_CHARS): Generator<TextPiece> {
  if (content.length <= max) {
    yield { text: content, offset: 0 };
    return;
  }
  let current: TextPiece | null = null;
  /** A finished piece without the white space at its ends (none when nothing else is left). */
  const trimmed = (p: TextPiece): TextPiece | null => {
    const text = p.text.trim();
    return text.length > 0 ? { text, offset: p.offset + p.text.length - p.text.trimStart().length } : null;
  };
  /** Adds a segment to the current piece; the piece it closes, if it did not fit. */
  const push = (text: string, offset: number): TextPiece | null => {
    if (current && current.text.length + text.length <= max) {
      current.text = content.slice(current.offset, offset + text.length);
      return null;
    }
    const done: TextPiece | null = current;
    current = { text, offset };
    return done && trimmed(done);
  };
  for (const s of segmentsOf(content, max)) {
    const parts =
      s.segment.length <= max
        ? [s.segment]
        : Array.from({ length: Math.ceil(s.segment.length / max) }, (_, i) => s.segment.slice(i * max, (i + 1) * max));
    for (const [i, part] of parts.entries()) {
      const done = push(part, s.index + i * max);
      if (done) yield done;
    }
  }
  const last: TextPiece | null = current;
  const done = last && trimmed(last);
  if (done) yield done;
}

export function chunkText(content: string, max = MAX_CHUNK_CHARS): TextPiece[] {
  return [...textPieces(content, max)];
}
