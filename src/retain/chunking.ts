// Splits an item's content into chunks of bounded size at paragraph, then sentence, boundaries.
export const MAX_CHUNK_CHARS = 2_000;

export interface TextPiece {
  text: string;
  /** Offset of the piece in the item's content. */
  offset: number;
}

const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });

export function chunkText(content: string, max = MAX_CHUNK_CHARS): TextPiece[] {
  if (content.length <= max) return [{ text: content, offset: 0 }];
  const pieces: TextPiece[] = [];
  let current: TextPiece | null = null;
  const push = (text: string, offset: number): void => {
    if (current && current.text.length + text.length <= max) {
      current.text = content.slice(current.offset, offset + text.length);
      return;
    }
    if (current) pieces.push(current);
    current = { text, offset };
  };
  for (const s of sentences.segment(content)) {
    if (s.segment.length <= max) push(s.segment, s.index);
    else for (let i = 0; i < s.segment.length; i += max) push(s.segment.slice(i, i + max), s.index + i);
  }
  if (current) pieces.push(current);
  return pieces.map((p) => {
    const lead = p.text.length - p.text.trimStart().length;
    return { text: p.text.trim(), offset: p.offset + lead };
  }).filter((p) => p.text.length > 0);
}
