// Sentences of a long text with their offsets, the segmenter fed in bounded windows (see sentencesOf): shared by
// retain (chunking, extraction units) and thread memory (salience), which all read texts of any length.
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Longest stretch of text given to the segmenter at once. */
const WINDOW = 16_000;

/**
 * Within a window, the segmenter is fed pieces that end just after the first line break past this many characters.
 * V8 allocates, for every sentence it hands out, memory in proportion to the whole string it segments (about 125
 * bytes per character of a conversation turn, a quarter of all a retain allocated); pieces of a few hundred
 * characters cut that by eight and the segmenter's CPU by a third, with the same sentences (it always breaks after
 * a line break). Shorter pieces cost more in calls than they save.
 */
const PIECE = 256;

/**
 * Sentences of a text with their offsets. V8's sentence segmenter slows down sharply on long strings (about 50 ms
 * for 70,000 characters, 6 s for 140,000, 12 s for 290,000), so the text goes to it in windows of at most 16,000
 * characters, each ending just after a line break (where the segmenter always breaks, so sentences come out the
 * same), else after a sentence end followed by a space, else at a space, else at the window's edge.
 */
export function* sentencesOf(content: string): Generator<{ segment: string; index: number }> {
  let start = 0;
  while (start < content.length) {
    let end = Math.min(start + WINDOW, content.length);
    if (end < content.length) {
      const window = content.slice(start, end);
      const cut = [window.lastIndexOf('\n'), lastSentenceEnd(window), window.lastIndexOf(' ')].find((i) => i > 0);
      if (cut !== undefined) end = start + cut + 1;
    }
    for (let from = start; from < end; ) {
      const nl = content.indexOf('\n', from + PIECE);
      const to = nl >= 0 && nl < end ? nl + 1 : end;
      for (const s of sentences.segment(content.slice(from, to))) yield { segment: s.segment, index: from + s.index };
      from = to;
    }
    start = end;
  }
}

/** Index of the space after the last `.`, `!` or `?` that is followed by a space, or -1. */
function lastSentenceEnd(text: string): number {
  for (let i = text.length - 2; i > 0; i--)
    if (text[i + 1] === ' ' && (text[i] === '.' || text[i] === '!' || text[i] === '?')) return i + 1;
  return -1;
}
