// A SCRIPTED FAKE of the OpenAI/Groq chat-completions wire protocol, for tests. It is not a model: it answers
// each POST to /v1/chat/completions (OpenAI path) or /openai/v1/chat/completions (Groq path) with the next
// reply from a script you give it (JSON content with usage, any text, an HTTP error with headers, a hang, a
// dropped connection), and records every request body it received. Real SDK clients talk to it over HTTP on
// 127.0.0.1, so tests exercise the real groq-sdk / openai code paths.
//
//   const server = await startFakeLlmServer();
//   server.script(reply.json({ facts: [] }, { prompt: 120, completion: 8 }), reply.rateLimited(1));
//   ... createGroqProvider({ apiKey: 'test', baseUrl: server.groqBaseUrl }) ...
//   server.requests[0].body.messages; server.maxInFlight;
//   await server.close();
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedUsage {
  prompt: number;
  completion: number;
  cached?: number;
}

export type ScriptedReply =
  | { type: 'completion'; content: string; usage?: ScriptedUsage; finishReason?: string; delayMs?: number }
  | { type: 'error'; status: number; message: string; headers?: Record<string, string>; delayMs?: number }
  | { type: 'hang' }
  | { type: 'drop' };

/** Computes a reply from the request (for tests whose replies depend on what was asked). */
export type Responder = (request: ReceivedRequest) => ScriptedReply;

/** Builders for scripted replies. */
export const reply = {
  /** A completion whose content is JSON.stringify(value). */
  json: (value: unknown, usage?: ScriptedUsage): ScriptedReply => ({ type: 'completion', content: JSON.stringify(value), usage }),
  /** A completion with exactly this content (malformed JSON, prose, fenced code...). */
  text: (content: string, usage?: ScriptedUsage): ScriptedReply => ({ type: 'completion', content, usage }),
  /** An HTTP error in the OpenAI error shape: { error: { message, type } }. */
  error: (status: number, message = `scripted ${status}`, headers?: Record<string, string>): ScriptedReply => ({
    type: 'error',
    status,
    message,
    headers,
  }),
  /** 429 with a Retry-After header (seconds, or an HTTP date string). */
  rateLimited: (retryAfter: number | string): ScriptedReply => ({
    type: 'error',
    status: 429,
    message: 'Rate limit reached (scripted)',
    headers: { 'retry-after': String(retryAfter) },
  }),
  /** Never answers; the request stays open until the client gives up or the server closes. */
  hang: (): ScriptedReply => ({ type: 'hang' }),
  /** Destroys the connection without answering (a network error for the client). */
  drop: (): ScriptedReply => ({ type: 'drop' }),
  /** The same reply, sent after a pause (to hold requests in flight). */
  delayed: (delayMs: number, scripted: ScriptedReply): ScriptedReply =>
    scripted.type === 'completion' || scripted.type === 'error' ? { ...scripted, delayMs } : scripted,
};

/** The chat-completions request body as received (the fields tests look at, plus anything else sent). */
export interface ReceivedChatBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}

export interface ReceivedRequest {
  /** 0-based order of arrival. */
  index: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: ReceivedChatBody;
}

export interface FakeLlmServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Base URL for the openai client (and any OpenAI-compatible client): `${url}/v1`. */
  readonly openaiBaseUrl: string;
  /** Base URL for groq-sdk, which appends /openai/v1 itself: `${url}`. */
  readonly groqBaseUrl: string;
  /** The environment that points a Cairn server's every LLM step here: model `scripted-model`, no retries. */
  readonly cairnEnv: Record<string, string>;
  /** Appends replies to the script; each request consumes the next one. */
  script(...replies: Array<ScriptedReply | Responder>): void;
  /** Scripted replies not consumed yet. */
  readonly pending: number;
  /** Every chat-completions request received, in order. */
  readonly requests: readonly ReceivedRequest[];
  /** Requests being answered right now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close(): Promise<void>;
}

export interface FakeLlmServerOptions {
  /** Answer used when the script is empty (default: HTTP 400 "no scripted reply left", which is not retried). */
  otherwise?: Responder;
}

const CHAT_PATHS = new Set(['/v1/chat/completions', '/openai/v1/chat/completions']);

/** Rough token count for unscripted usage: about four characters a token. */
const roughTokens = (text: string): number => Math.ceil(text.length / 4);

export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const queue: Array<ScriptedReply | Responder> = [];
  const requests: ReceivedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const timers = new Set<NodeJS.Timeout>();

  const next = (request: ReceivedRequest): ScriptedReply => {
    const item = queue.shift();
    if (item) return typeof item === 'function' ? item(request) : item;
    if (options.otherwise) return options.otherwise(request);
    return reply.error(400, `fake-llm-server: no scripted reply left for request #${request.index}`);
  };

  const answer = (res: ServerResponse, request: ReceivedRequest, scripted: ScriptedReply): void => {
    if (scripted.type === 'completion') {
      const prompt = scripted.usage?.prompt ?? roughTokens(request.body.messages.map((m) => m.content).join(''));
      const completion = scripted.usage?.completion ?? roughTokens(scripted.content);
      sendJson(res, 200, {
        id: `chatcmpl-fake-${request.index}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: scripted.content },
            finish_reason: scripted.finishReason ?? 'stop',
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: completion,
          total_tokens: prompt + completion,
          prompt_tokens_details: { cached_tokens: scripted.usage?.cached ?? 0 },
        },
      });
    } else if (scripted.type === 'error') {
      const type = scripted.status === 429 ? 'rate_limit_exceeded' : scripted.status >= 500 ? 'server_error' : 'invalid_request_error';
      sendJson(res, scripted.status, { error: { message: scripted.message, type, code: null } }, scripted.headers);
    } else if (scripted.type === 'drop') {
      res.socket?.destroy();
    }
    // 'hang': leave the response open.
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || !CHAT_PATHS.has(path)) {
      sendJson(res, 404, { error: { message: `fake-llm-server: no route ${req.method} ${path}`, type: 'not_found' } });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: ReceivedChatBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedChatBody;
      } catch {
        sendJson(res, 400, { error: { message: 'fake-llm-server: request body is not JSON', type: 'invalid_request_error' } });
        return;
      }
      const request: ReceivedRequest = { index: requests.length, path, headers: req.headers, body };
      requests.push(request);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      let done = false;
      const finish = (): void => {
        if (!done) {
          done = true;
          inFlight--;
        }
      };
      res.on('close', finish);
      const scripted = next(request);
      const delayMs = scripted.type === 'completion' || scripted.type === 'error' ? (scripted.delayMs ?? 0) : 0;
      if (delayMs > 0) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) answer(res, request, scripted);
        }, delayMs);
        timers.add(timer);
      } else {
        answer(res, request, scripted);
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    groqBaseUrl: url,
    cairnEnv: { CAIRN_LLM_BASE_URL: `${url}/v1`, CAIRN_LLM_MODEL: 'scripted-model', CAIRN_LLM_MAX_RETRIES: '0' },
    script: (...replies) => {
      queue.push(...replies);
    },
    get pending() {
      return queue.length;
    },
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
