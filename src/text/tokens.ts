// Token counting with a real BPE tokenizer (cl100k_base, via gpt-tokenizer), for budgets and thread memory.
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';

/** Longest run of non-space (or space) characters encoded in one piece. */
const RUN = 256;
const LONG_RUN = new RegExp(`\\S{${RUN}}|\\s{${RUN}}`, 'g');

/**
 * Tokens of a text. BPE merges inside one pre-token (a run of letters, of punctuation or of spaces) take time
 * that grows with the square of its length (a 200,000-character word took 40 s), so runs are cut into
 * 256-character slices counted one by one: each cut can add a token (at most one per 256 characters of such a
 * run); text without runs that long is counted exactly.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  let count = 0;
  let last = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    if (m.index > last) count += encode(text.slice(last, m.index)).length;
    count += encode(m[0]).length;
    last = m.index + m[0].length;
  }
  if (last < text.length) count += encode(text.slice(last)).length;
  return count;
}
