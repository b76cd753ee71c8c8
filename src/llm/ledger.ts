// The usage ledger: a port that records every LLM call (tokens, latency, estimated cost, success) per bank
// and operation, and sums them on demand; plus withLedger, a decorator that records each call made through
// a provider, failed ones included. The SQLite adapter is src/store/sqlite/usage.ts.
import type { CallOptions, CompletionRequest, CompletionResult, LlmOperation, LlmProvider } from './ports.ts';
import { traced } from '../telemetry/index.ts';
import { estimateCostUsd } from './prices.ts';

export interface UsageEntry {
  operation: LlmOperation;
  /** null for calls made outside any bank. */
  bankId: string | null;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** Wall time as the caller saw it (queueing and retries included when wrapping a resilient provider). */
  latencyMs: number;
  /** Estimated from src/llm/prices.ts at call time; 0 for unknown and local models. */
  costUsd: number;
  /** When the call started (ISO 8601). */
  at: string;
  ok: boolean;
  /** What went wrong, for failed calls. */
  error: string | null;
}

export interface UsageTotals {
  calls: number;
  failures: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  costUsd: number;
  latencyMs: number;
}

export interface UsageGroup extends UsageTotals {
  operation: LlmOperation;
  provider: string;
  model: string;
}

/** The spans of time the usage can also be totalled per: UTC hours or days. */
export const USAGE_BUCKETS = ['hour', 'day'] as const;
export type UsageBucket = (typeof USAGE_BUCKETS)[number];

/**
 * How a ledger finds a call's bucket: stored times are canonical ISO (`2024-06-01T13:45:10.250Z`, always 24
 * characters), so the bucket's start is the first `chars` of it followed by `rest`.
 */
export const BUCKET_START: Record<UsageBucket, { chars: number; rest: string }> = {
  hour: { chars: 13, rest: ':00:00.000Z' },
  day: { chars: 10, rest: 'T00:00:00.000Z' },
};

/** One bucket's totals for one operation, provider and model. */
export interface UsagePoint extends UsageGroup {
  /** The bucket's start: the UTC hour or day, canonical ISO (`2024-06-01T13:00:00.000Z`). */
  start: string;
}

export interface UsageQuery {
  bankId: string;
  /** Inclusive lower bound on `at` (ISO 8601). */
  from?: string;
  /** Exclusive upper bound on `at` (ISO 8601). */
  to?: string;
  /** Also total per UTC hour or day (the report's `series`). */
  bucket?: UsageBucket;
}

export interface UsageReport {
  bankId: string;
  from: string | null;
  to: string | null;
  /** One row per operation, provider and model, ordered by operation then model. */
  groups: UsageGroup[];
  total: UsageTotals;
  /** Only when a bucket was asked for: per bucket, operation, provider and model, ordered by start, operation,
   * model, provider; buckets without calls are left out. */
  series?: UsagePoint[];
}

export interface UsageLedger {
  record(entry: UsageEntry): Promise<void>;
  query(query: UsageQuery): Promise<UsageReport>;
}

export const emptyTotals = (): UsageTotals => ({
  calls: 0,
  failures: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedTokens: 0,
  costUsd: 0,
  latencyMs: 0,
});

const RECORDED_TO = Symbol('cairn.llm.recordedTo');

interface LedgeredProvider extends LlmProvider {
  readonly [RECORDED_TO]: UsageLedger;
}

/** True when `provider` already records its calls to `ledger` (so wrapping again would count twice). */
export function isRecordedTo(provider: LlmProvider, ledger: UsageLedger): boolean {
  return (provider as Partial<LedgeredProvider>)[RECORDED_TO] === ledger;
}

/** Wraps a provider so every call, successful or not, becomes one ledger entry. */
export function withLedger(provider: LlmProvider, ledger: UsageLedger): LlmProvider {
  if (isRecordedTo(provider, ledger)) return provider;
  const wrapped: LedgeredProvider = {
    [RECORDED_TO]: ledger,
    provider: provider.provider,
    model: provider.model,
    async complete(request: CompletionRequest, options?: CallOptions): Promise<CompletionResult> {
      const at = new Date().toISOString();
      const started = performance.now();
      const base = { operation: request.operation, bankId: request.bankId ?? null, at };
      let result: CompletionResult;
      try {
        result = await traced(
          `llm.${request.operation}`,
          { 'gen_ai.system': provider.provider, 'gen_ai.request.model': provider.model },
          async (span) => {
            const r = await provider.complete(request, options);
            span.setAttributes({ 'gen_ai.usage.input_tokens': r.usage.inputTokens, 'gen_ai.usage.output_tokens': r.usage.outputTokens });
            return r;
          },
        );
      } catch (error) {
        const failed: UsageEntry = {
          ...base,
          provider: provider.provider,
          model: provider.model,
          inputTokens: 0,
          outputTokens: 0,
          cachedTokens: 0,
          latencyMs: Math.round(performance.now() - started),
          costUsd: 0,
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        };
        // The call's own error is the one to report; a ledger failure here must not replace it.
        await ledger.record(failed).catch(() => undefined);
        throw error;
      }
      await ledger.record({
        ...base,
        provider: result.provider,
        model: result.model,
        ...result.usage,
        latencyMs: Math.round(performance.now() - started),
        costUsd: estimateCostUsd(result.model, result.usage),
        ok: true,
        error: null,
      });
      return result;
    },
  };
  return wrapped;
}
