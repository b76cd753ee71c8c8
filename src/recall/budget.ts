// The token budget: results are kept in order while their texts fit in maxTokens (counted with the real
// tokenizer); the first one that does not fit ends the list, so a lower-ranked fact never displaces a better one.
import { countTokens } from '../text/index.ts';

export interface Budgeted<T> {
  kept: Array<T & { tokens: number }>;
  tokens: number;
  /** How many were dropped for the budget. */
  dropped: number;
}

export function fitToTokens<T extends { text: string }>(items: T[], maxTokens: number): Budgeted<T> {
  const kept: Array<T & { tokens: number }> = [];
  let tokens = 0;
  for (const item of items) {
    const n = countTokens(item.text);
    if (tokens + n > maxTokens) break;
    tokens += n;
    kept.push({ ...item, tokens: n });
  }
  return { kept, tokens, dropped: items.length - kept.length };
}
