// Makes any LlmProvider dependable: a timeout per attempt, retries with exponential backoff and jitter on
// rate limits, 5xx, network errors and timeouts (honouring Retry-After, capped), no retry on other 4xx, and a
// concurrency limit shared by every caller of one provider endpoint. The SDKs' own retries are off, so these
// are the only ones. (p-retry is not used: it adds its own backoff on top of any wait we take, so it cannot
// wait exactly what Retry-After asks.)
import pLimit, { type LimitFunction } from 'p-limit';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallOptions, CompletionRequest, CompletionResult, LlmProvider } from './ports.ts';
import { LlmCallError } from './errors.ts';

export interface ResilienceOptions {
  /** Longest wait for one attempt's reply, in ms (default 60 000). */
  timeoutMs?: number;
  /** Further attempts after the first (default 3). */
  retries?: number;
  /** First backoff step, doubled on each retry (default 500 ms). */
  backoffBaseMs?: number;
  /** Largest backoff step (default 10 000 ms). */
  backoffMaxMs?: number;
  /** Longest Retry-After we honour; longer asks wait this long (default 30 000 ms). */
  retryAfterCapMs?: number;
  /** Attempts in flight at once (default 4); ignored when `limiter` is given. */
  concurrency?: number;
  /** A limiter shared with other wrappers of the same endpoint (see sharedLimiter). */
  limiter?: LimitFunction;
}

export const RESILIENCE_DEFAULTS = {
  timeoutMs: 60_000,
  retries: 3,
  backoffBaseMs: 500,
  backoffMaxMs: 10_000,
  retryAfterCapMs: 30_000,
  concurrency: 4,
} as const;

/** Exponential backoff with "equal jitter": half the step fixed, half random. `retry` counts from 1. */
export function backoffDelayMs(retry: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const step = Math.min(maxMs, baseMs * 2 ** (retry - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

const limiters = new Map<string, LimitFunction>();

/** One limiter per key (e.g. provider + base URL), created on first use with the given concurrency. */
export function sharedLimiter(key: string, concurrency: number): LimitFunction {
  let limiter = limiters.get(key);
  if (!limiter) {
    limiter = pLimit(concurrency);
    limiters.set(key, limiter);
  }
  return limiter;
}

export function withResilience(provider: LlmProvider, options: ResilienceOptions = {}): LlmProvider {
  const settings = { ...RESILIENCE_DEFAULTS, ...definedOnly(options) };
  const limit = options.limiter ?? pLimit(settings.concurrency);

  const attempt = async (request: CompletionRequest, outer: AbortSignal | undefined): Promise<CompletionResult> => {
    outer?.throwIfAborted(); // cancelled while waiting for a slot
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new LlmCallError({
            kind: 'timeout',
            message: `no reply within ${settings.timeoutMs} ms`,
            provider: provider.provider,
            model: provider.model,
          }),
        );
        controller.abort();
      }, settings.timeoutMs);
    });
    try {
      return await Promise.race([provider.complete(request, { signal: controller.signal }), deadline]);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  };

  const aborted = (signal: AbortSignal): LlmCallError =>
    new LlmCallError({
      kind: 'aborted',
      message: 'call cancelled by the caller',
      provider: provider.provider,
      model: provider.model,
      cause: signal.reason,
    });

  return {
    provider: provider.provider,
    model: provider.model,
    async complete(request: CompletionRequest, callOptions: CallOptions = {}): Promise<CompletionResult> {
      const outer = callOptions.signal;
      for (let attemptNo = 1; ; attemptNo++) {
        if (outer?.aborted) throw aborted(outer);
        try {
          return await limit(() => attempt(request, outer));
        } catch (error) {
          if (outer?.aborted) throw aborted(outer);
          if (!(error instanceof LlmCallError)) throw error;
          error.attempts = attemptNo;
          if (!error.retryable || attemptNo > settings.retries) throw error;
          const wait =
            error.retryAfterMs !== undefined
              ? Math.min(error.retryAfterMs, settings.retryAfterCapMs)
              : backoffDelayMs(attemptNo, settings.backoffBaseMs, settings.backoffMaxMs);
          try {
            await sleep(wait, undefined, outer ? { signal: outer } : undefined);
          } catch {
            throw aborted(outer as AbortSignal);
          }
        }
      }
    },
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
