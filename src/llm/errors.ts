// Errors of the LLM layer. LlmCallError: a call to the provider failed (rate limit, server error, network,
// timeout, a rejected request); it says whether trying again can help. LlmOutputError: the provider answered,
// but the reply could not be parsed or validated even after a corrective retry.
import { CairnError } from '../core/index.ts';
import type { LlmUsage } from './ports.ts';
import { retryAfterFromHeaders, type HeaderReader } from './retry-after.ts';

export type LlmFailureKind = 'rate_limited' | 'server' | 'network' | 'timeout' | 'client' | 'aborted';

const RETRYABLE: ReadonlySet<LlmFailureKind> = new Set(['rate_limited', 'server', 'network', 'timeout']);

export interface LlmCallErrorInit {
  kind: LlmFailureKind;
  message: string;
  provider: string;
  model: string;
  httpStatus?: number;
  retryAfterMs?: number;
  cause?: unknown;
}

export class LlmCallError extends CairnError {
  readonly kind: LlmFailureKind;
  readonly provider: string;
  readonly model: string;
  /** HTTP status of the provider's answer, when there was one (`status` is the one our API answers with). */
  readonly httpStatus: number | undefined;
  /** How long the provider asked us to wait before trying again (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** How many attempts were made before giving up (set by the resilience layer). */
  attempts = 1;

  constructor(init: LlmCallErrorInit) {
    super('unavailable', `${init.provider} ${init.model}: ${init.message}`);
    this.name = 'LlmCallError';
    this.kind = init.kind;
    this.provider = init.provider;
    this.model = init.model;
    this.httpStatus = init.httpStatus;
    this.retryAfterMs = init.retryAfterMs;
    if (init.cause !== undefined) this.cause = init.cause;
  }

  /** Rate limits, 5xx, network failures and timeouts may pass; other 4xx and cancellations will not. */
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/** Classifies an HTTP error answer: 429 is a rate limit, 5xx a server error, any other status a client error. */
export function httpCallError(
  status: number,
  headers: HeaderReader | null | undefined,
  message: string,
  who: { provider: string; model: string },
  cause?: unknown,
): LlmCallError {
  const kind: LlmFailureKind = status === 429 ? 'rate_limited' : status >= 500 ? 'server' : 'client';
  return new LlmCallError({
    kind,
    httpStatus: status,
    message: `HTTP ${status}: ${message}`,
    retryAfterMs: retryAfterFromHeaders(headers),
    provider: who.provider,
    model: who.model,
    cause,
  });
}

export interface LlmOutputErrorInit {
  provider: string;
  model: string;
  operation: string;
  /** What was wrong with the last reply (parse error or validation issues). */
  problem: string;
  /** The last reply, as received. */
  reply: string;
  attempts: number;
  usage: LlmUsage;
}

export class LlmOutputError extends CairnError {
  readonly provider: string;
  readonly model: string;
  readonly operation: string;
  readonly problem: string;
  readonly reply: string;
  readonly attempts: number;
  /** Tokens spent on the failed attempts, summed. */
  readonly usage: LlmUsage;

  constructor(init: LlmOutputErrorInit) {
    super(
      'unavailable',
      `${init.provider} ${init.model} gave no usable ${init.operation} output after ${init.attempts} attempts: ${init.problem}`,
    );
    this.name = 'LlmOutputError';
    this.provider = init.provider;
    this.model = init.model;
    this.operation = init.operation;
    this.problem = init.problem;
    this.reply = init.reply;
    this.attempts = init.attempts;
    this.usage = init.usage;
  }
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes of an OpenAI-style SDK (groq-sdk and openai ship the same set). */
export interface SdkErrorClasses {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIError: ErrorClass;
}

/** Maps an SDK's thrown error onto an LlmCallError (what kind of failure, retryable or not). */
export function sdkCallError(error: unknown, sdk: SdkErrorClasses, who: { provider: string; model: string }): LlmCallError {
  if (error instanceof LlmCallError) return error;
  const base = { provider: who.provider, model: who.model, cause: error };
  if (error instanceof sdk.APIUserAbortError) return new LlmCallError({ ...base, kind: 'aborted', message: 'request aborted' });
  if (error instanceof sdk.APIConnectionTimeoutError) return new LlmCallError({ ...base, kind: 'timeout', message: error.message });
  if (error instanceof sdk.APIConnectionError) return new LlmCallError({ ...base, kind: 'network', message: error.message });
  if (error instanceof sdk.APIError) {
    const { status, headers } = error as Error & { status?: unknown; headers?: Parameters<typeof httpCallError>[1] };
    if (typeof status === 'number') return httpCallError(status, headers, error.message, who, error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmCallError({ ...base, kind: 'client', message });
}
