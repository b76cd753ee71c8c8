// A small price table for estimating what an LLM call cost, in USD per million tokens. Estimates only:
// list prices as published by the providers (checked 2025), no discounts or batch rates. Unknown and local
// models cost 0. Update the table when prices change; the ledger stores the estimate made at call time.
import type { LlmUsage } from './ports.ts';

export interface ModelPrice {
  inputPerMTok: number;
  /** Price of prompt tokens served from the provider's cache; the input price when absent. */
  cachedInputPerMTok?: number;
  outputPerMTok: number;
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Groq
  'llama-3.3-70b-versatile': { inputPerMTok: 0.59, outputPerMTok: 0.79 },
  'llama-3.1-8b-instant': { inputPerMTok: 0.05, outputPerMTok: 0.08 },
  'openai/gpt-oss-120b': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
  'openai/gpt-oss-20b': { inputPerMTok: 0.075, cachedInputPerMTok: 0.0375, outputPerMTok: 0.3 },
  'moonshotai/kimi-k2-instruct-0905': { inputPerMTok: 1.0, cachedInputPerMTok: 0.5, outputPerMTok: 3.0 },
  'meta-llama/llama-4-scout-17b-16e-instruct': { inputPerMTok: 0.11, outputPerMTok: 0.34 },
  'meta-llama/llama-4-maverick-17b-128e-instruct': { inputPerMTok: 0.2, outputPerMTok: 0.6 },
  // OpenAI
  'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2.0, cachedInputPerMTok: 0.5, outputPerMTok: 8.0 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
};

/** The price of a model: exact name, else the longest listed name it extends with a dated suffix. */
export function priceOf(model: string, table: Readonly<Record<string, ModelPrice>> = MODEL_PRICES): ModelPrice | undefined {
  const exact = table[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const name of Object.keys(table)) {
    if (model.startsWith(`${name}-`) && (!best || name.length > best.length)) best = name;
  }
  return best ? table[best] : undefined;
}

/** Estimated cost of one call in USD (0 for unknown models). Cached tokens are part of the input tokens. */
export function estimateCostUsd(model: string, usage: LlmUsage, table?: Readonly<Record<string, ModelPrice>>): number {
  const price = priceOf(model, table);
  if (!price) return 0;
  const cached = Math.min(usage.cachedTokens, usage.inputTokens);
  const fresh = usage.inputTokens - cached;
  const cost =
    fresh * price.inputPerMTok + cached * (price.cachedInputPerMTok ?? price.inputPerMTok) + usage.outputTokens * price.outputPerMTok;
  return cost / 1_000_000;
}
