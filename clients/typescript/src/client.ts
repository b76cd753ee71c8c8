// The hand-written layer over the generated types (schema.ts): one method per thing an agent does with Cairn,
// each typed from the OpenAPI document through openapi-fetch. What a generator does badly lives here: errors as
// typed exceptions, retries on 429 and 503 that honour Retry-After, waiting for an async operation, and thread
// events as an async iterable over Server-Sent Events.
import createFetchClient, { type Client } from 'openapi-fetch';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { components, paths } from './schema.ts';

type Schemas = components['schemas'];
export type Bank = Schemas['Bank'];
export type CreateBank = Schemas['CreateBank'];
export type RetainRequest = Schemas['RetainRequest'];
export type RetainResponse = Schemas['RetainResponse'];
export type RecallRequest = Schemas['RecallRequest'];
export type RecallResponse = Schemas['RecallResponse'];
export type RecallResult = Schemas['RecallResult'];
export type ReflectRequest = Schemas['ReflectRequest'];
export type ReflectResponse = Schemas['ReflectResponse'];
export type Operation = Schemas['Operation'];
export type Why = Schemas['Why'];
export type ConsolidationStatus = Schemas['ConsolidationStatus'];
export type ThreadMessageInput = Schemas['ThreadMessageInput'];
export type ThreadAppendResult = Schemas['ThreadAppendResult'];
export type ThreadContext = Schemas['ThreadContext'];
export type WorkingMemory = Schemas['WorkingMemory'];

/** A failed request: the HTTP status, Cairn's error code (`not_found`, `bad_request`, ...) and its message. */
export class CairnError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** How long the server asked to wait before a retry (429, 503), when it said. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'CairnError';
  }
}

export interface CairnClientOptions {
  /** Where Cairn listens, e.g. http://127.0.0.1:8787. */
  baseUrl: string;
  /** The server's CAIRN_API_KEY, sent as a bearer token. */
  apiKey?: string;
  /** Retries of a request answered 429, or 503 with Retry-After (default 3): after Retry-After when given, else
   * 0.5 s doubling. An abort ends a wait. */
  maxRetries?: number;
  /** Longest wait before one retry (default 30 s): a longer Retry-After fails at once with the error. */
  maxRetryWaitMs?: number;
  /** Another fetch (tests, proxies). */
  fetch?: typeof fetch;
}

export interface ThreadEvent {
  id: string | undefined;
  type: string;
  data: unknown;
}

/** Retry-After as milliseconds: whole seconds or an HTTP date (RFC 9110); null when absent or anything else. */
function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The longest message kept from an error body that is not Cairn's (a proxy's HTML page). */
const MAX_FOREIGN_MESSAGE = 300;

/** A CairnError from an error answer: its status, Retry-After, and Cairn's `{error: {code, message}}` body (or the
 * text of another body, such as a proxy's page). */
function cairnError(response: Response, body: unknown): CairnError {
  const parsed = typeof body === 'string' ? safeJson(body) : body;
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : 'http_error';
  const text = typeof body === 'string' && body ? body.replace(/\s+/g, ' ').trim() : '';
  const message =
    typeof error?.message === 'string'
      ? error.message
      : text
        ? text.length > MAX_FOREIGN_MESSAGE
          ? `${text.slice(0, MAX_FOREIGN_MESSAGE)}…`
          : text
        : response.statusText;
  return new CairnError(response.status, code, message, retryAfterMs(response.headers.get('retry-after')));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function errorOf(response: Response): Promise<CairnError> {
  return cairnError(response, await response.text().catch(() => ''));
}

/** Whether an answer asks to be retried: 429 always; 503 only with Retry-After (Cairn answers 503 without one
 * when an LLM call failed after its own retries, and sending the request again would pay for the calls again). */
const retryable = (response: Response): boolean =>
  response.status === 429 || (response.status === 503 && response.headers.has('retry-after'));

/** Longest timer Node keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Waits, or rejects as soon as the signal aborts. */
function pause(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** fetch with retries on 429/503 (the body is replayed from a clone, so POSTs retry too); an abort ends a wait. */
function retrying(base: typeof fetch, maxRetries: number, maxWaitMs: number): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      if (!retryable(response) || attempt >= maxRetries) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? 500 * 2 ** attempt;
      if (wait > Math.min(maxWaitMs, MAX_TIMER_MS)) return response;
      await response.body?.cancel();
      await pause(wait, request.signal);
    }
  };
}

/** The data of an answer of `client.raw` (openapi-fetch), or its error thrown as a CairnError: for routes the
 * methods below do not cover. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch (e) {
    // A success whose body is not JSON (a proxy's page): say so rather than throw a bare SyntaxError.
    if (e instanceof SyntaxError) throw new CairnError(0, 'bad_response', `the server's answer is not JSON: ${e.message}`);
    throw e;
  }
  const { data, error, response } = answer;
  if (!response.ok) throw cairnError(response, error);
  return data as T;
}

export class CairnClient {
  /** The typed low-level client (every route of the OpenAPI document), for what the methods below do not cover. */
  readonly raw: Client<paths>;
  private readonly fetch: typeof fetch;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;

  constructor(options: CairnClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.headers = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
    this.fetch = retrying(options.fetch ?? globalThis.fetch, options.maxRetries ?? 3, options.maxRetryWaitMs ?? 30_000);
    this.raw = createFetchClient<paths>({ baseUrl: this.baseUrl, headers: this.headers, fetch: this.fetch });
  }

  // banks

  async listBanks(): Promise<Bank[]> {
    return (await unwrap(this.raw.GET('/v1/banks'))).banks;
  }

  getBank(bank: string): Promise<Bank> {
    return unwrap(this.raw.GET('/v1/banks/{bank}', { params: { path: { bank } } }));
  }

  createBank(input: CreateBank): Promise<Bank> {
    return unwrap(this.raw.POST('/v1/banks', { body: input }));
  }

  /** Deletes the bank with everything in it; its tombstone keeps the reason. */
  /** Deletes the bank. `complete` false: it is gone for everyone, and its rows (a large bank's) are still being removed. */
  deleteBank(bank: string, reason?: string): Promise<{ deleted: string; complete: boolean }> {
    return unwrap(this.raw.DELETE('/v1/banks/{bank}', { params: { path: { bank }, query: { reason } } }));
  }

  // memory

  /** Retains and answers once the facts are stored. */
  retain(bank: string, request: RetainRequest): Promise<RetainResponse> {
    return unwrap(this.raw.POST('/v1/banks/{bank}/memories', { params: { path: { bank } }, body: { ...request, async: false } }));
  }

  /** Starts a retain and answers at once with its operation (see waitForOperation). */
  retainAsync(bank: string, request: RetainRequest): Promise<RetainResponse> {
    return unwrap(this.raw.POST('/v1/banks/{bank}/memories', { params: { path: { bank } }, body: { ...request, async: true } }));
  }

  getOperation(id: string): Promise<Operation> {
    return unwrap(this.raw.GET('/v1/operations/{id}', { params: { path: { id } } }));
  }

  /** Polls an operation until it succeeded (its final state) or failed (thrown as a CairnError 'operation_failed'). */
  async waitForOperation(
    id: string,
    options: { intervalMs?: number; timeoutMs?: number; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<Operation> {
    const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
    for (let wait = options.intervalMs ?? 100; ; wait = Math.min(wait * 2, 2000)) {
      const op = await this.getOperation(id);
      options.onProgress?.(op.progress.done, op.progress.total);
      if (op.status === 'succeeded') return op;
      if (op.status === 'failed') throw new CairnError(200, 'operation_failed', op.error ?? `operation ${id} failed`);
      if (Date.now() + wait > deadline) throw new CairnError(0, 'timeout', `operation ${id} still ${op.status} after the timeout`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  recall(bank: string, request: RecallRequest): Promise<RecallResponse> {
    return unwrap(this.raw.POST('/v1/banks/{bank}/recall', { params: { path: { bank } }, body: request }));
  }

  reflect(bank: string, request: ReflectRequest): Promise<ReflectResponse> {
    return unwrap(this.raw.POST('/v1/banks/{bank}/reflect', { params: { path: { bank } }, body: request }));
  }

  /** The evidence chain behind an observation or fact. */
  why(bank: string, id: string): Promise<Why> {
    return unwrap(this.raw.GET('/v1/banks/{bank}/why/{id}', { params: { path: { bank, id } } }));
  }

  consolidationStatus(bank: string): Promise<ConsolidationStatus> {
    return unwrap(this.raw.GET('/v1/banks/{bank}/consolidation', { params: { path: { bank } } }));
  }

  async forgetFact(bank: string, fact: string, reason?: string): Promise<void> {
    await unwrap(this.raw.DELETE('/v1/banks/{bank}/facts/{fact}', { params: { path: { bank, fact }, query: { reason } } }));
  }

  async forgetDocument(bank: string, document: string, reason?: string): Promise<void> {
    await unwrap(this.raw.DELETE('/v1/banks/{bank}/documents/{document}', { params: { path: { bank, document }, query: { reason } } }));
  }

  // thread memory

  appendMessages(bank: string, thread: string, messages: ThreadMessageInput[]): Promise<ThreadAppendResult> {
    return unwrap(this.raw.POST('/v1/banks/{bank}/threads/{thread}/messages', { params: { path: { bank, thread } }, body: { messages } }));
  }

  threadContext(bank: string, thread: string, maxTokens?: number): Promise<ThreadContext> {
    return unwrap(this.raw.GET('/v1/banks/{bank}/threads/{thread}/context', { params: { path: { bank, thread }, query: { maxTokens } } }));
  }

  remember(bank: string, thread: string, note: string): Promise<WorkingMemory> {
    return unwrap(this.raw.POST('/v1/banks/{bank}/threads/{thread}/remember', { params: { path: { bank, thread } }, body: { note } }));
  }

  /** A thread's memory events as they happen (observation, reflection, working-memory.updated, ...), from after
   * `lastEventId` when given; ends when `signal` aborts or the server closes the stream. */
  async *threadEvents(
    bank: string,
    thread: string,
    options: { lastEventId?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<ThreadEvent> {
    const url = `${this.baseUrl}/v1/banks/${encodeURIComponent(bank)}/threads/${encodeURIComponent(thread)}/events`;
    const headers: Record<string, string> = { ...this.headers, accept: 'text/event-stream' };
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
    const response = await this.fetch(url, { headers, signal: options.signal });
    if (!response.ok || !response.body) throw await errorOf(response);
    const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    const reader = events.getReader();
    // Ending the loop (break, return, a throw) cancels the reader, which closes the connection and with it the
    // server's subscription.
    try {
      for (;;) {
        const { value, done } = await reader.read().catch((e: unknown) => {
          if (options.signal?.aborted) return { value: undefined, done: true as const };
          throw e;
        });
        if (done || !value) return;
        let data: unknown = value.data;
        try {
          data = JSON.parse(value.data);
        } catch {
          // not JSON: the text as sent
        }
        yield { id: value.id, type: value.event ?? 'message', data };
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
}
