// Token counting with a real BPE tokenizer (cl100k_base, via gpt-tokenizer), for budgets and thread memory.
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';

export function countTokens(text: string): number {
  if (!text) return 0;
  return encode(text).length;
}
