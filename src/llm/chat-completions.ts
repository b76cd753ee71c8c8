// The chat-completions wire protocol shared by Groq and every OpenAI-compatible server: building the request
// body (with the structured-output mode the provider can do), reading the reply and its usage, and stepping
// down from json_schema to json_object to plain text when a server says it cannot do the stronger mode.
// The SDK-specific adapters (groq.ts, openai-compatible.ts) supply only a ChatTransport.
import type { CallOptions, ChatMessage, CompletionRequest, CompletionResult, LlmProvider, LlmUsage } from './ports.ts';
import type { LlmCallError } from './errors.ts';
// How a JSON reply is asked for; the configuration names the modes (CAIRN_LLM_STRUCTURED_OUTPUT).
import type { StructuredOutputMode } from '../config/index.ts';

export type { StructuredOutputMode };

export type WireResponseFormat =
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } }
  | { type: 'json_object' };

export interface WireChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  response_format?: WireResponseFormat;
}

export interface WireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

export interface WireChatResponse {
  choices: Array<{ message: { content?: string | null }; finish_reason?: string | null }>;
  usage?: WireUsage | null;
}

/** What an SDK adapter provides: send one request (no SDK retries), and translate the SDK's errors. */
export interface ChatTransport {
  send(body: WireChatRequest, signal: AbortSignal | undefined): Promise<WireChatResponse>;
  toCallError(error: unknown): LlmCallError;
}

export interface ChatCompletionsOptions {
  provider: string;
  model: string;
  transport: ChatTransport;
  /** The strongest structured-output mode to try first; stepped down automatically when the server refuses it. */
  structuredOutput: StructuredOutputMode;
  /** Which body field carries the reply-length cap ('max_tokens' is the one every compatible server knows). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Ask for strict schema adherence (OpenAI's strict mode needs every property required; off by default). */
  strictSchema?: boolean;
}

export function usageFromWire(usage: WireUsage | null | undefined): LlmUsage {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

/** The instruction added when the schema cannot travel in response_format (JSON mode needs the word JSON too). */
export function schemaInstruction(schema: Record<string, unknown>): string {
  return (
    'Reply with a single JSON value and nothing else (no prose, no code fences). ' +
    `It must match this JSON schema:\n${JSON.stringify(schema)}`
  );
}

export function buildWireRequest(
  request: CompletionRequest,
  model: string,
  mode: StructuredOutputMode,
  options: Pick<ChatCompletionsOptions, 'maxTokensField' | 'strictSchema'> = {},
): WireChatRequest {
  const body: WireChatRequest = { model, messages: request.messages.map((m) => ({ role: m.role, content: m.content })) };
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body[options.maxTokensField ?? 'max_tokens'] = request.maxTokens;
  const schema = request.jsonSchema;
  if (!schema) return body;
  if (mode === 'json_schema') {
    const jsonSchema: { name: string; schema: Record<string, unknown>; strict?: boolean } = {
      name: wireSchemaName(schema.name),
      schema: schema.schema,
    };
    if (options.strictSchema) jsonSchema.strict = true;
    body.response_format = { type: 'json_schema', json_schema: jsonSchema };
    return body;
  }
  body.messages = [{ role: 'system', content: schemaInstruction(schema.schema) }, ...body.messages];
  if (mode === 'json_object') body.response_format = { type: 'json_object' };
  return body;
}

/** OpenAI accepts schema names of 1-64 letters, digits, '_' and '-'. */
export function wireSchemaName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return clean === '' ? 'result' : clean;
}

const NEXT_MODE: Record<StructuredOutputMode, StructuredOutputMode | null> = {
  json_schema: 'json_object',
  json_object: 'text',
  text: null,
};

/** A 400/422 whose message is about response_format: the server cannot do the mode we asked for. */
export function isResponseFormatRefusal(error: LlmCallError): boolean {
  if (error.kind !== 'client' || (error.httpStatus !== 400 && error.httpStatus !== 422)) return false;
  return /response_format|json_schema|json_object|structured output|response format/i.test(error.message);
}

export class ChatCompletionsProvider implements LlmProvider {
  readonly provider: string;
  readonly model: string;
  readonly #transport: ChatTransport;
  readonly #options: ChatCompletionsOptions;
  #mode: StructuredOutputMode;

  constructor(options: ChatCompletionsOptions) {
    this.provider = options.provider;
    this.model = options.model;
    this.#transport = options.transport;
    this.#options = options;
    this.#mode = options.structuredOutput;
  }

  /** The structured-output mode used now (starts at the configured one, steps down on refusals). */
  get structuredOutput(): StructuredOutputMode {
    return this.#mode;
  }

  async complete(request: CompletionRequest, options: CallOptions = {}): Promise<CompletionResult> {
    const started = performance.now();
    for (;;) {
      const mode = this.#mode;
      const body = buildWireRequest(request, this.model, mode, this.#options);
      let response: WireChatResponse;
      try {
        response = await this.#transport.send(body, options.signal);
      } catch (cause) {
        const error = this.#transport.toCallError(cause);
        const next = NEXT_MODE[mode];
        if (request.jsonSchema && next && isResponseFormatRefusal(error)) {
          // Remember the step down for later calls; concurrent calls may already have stepped further.
          if (this.#mode === mode) this.#mode = next;
          continue;
        }
        throw error;
      }
      const choice = response.choices[0];
      const result: CompletionResult = {
        text: choice?.message.content ?? '',
        usage: usageFromWire(response.usage),
        provider: this.provider,
        model: this.model,
        latencyMs: Math.round(performance.now() - started),
      };
      if (choice?.finish_reason) result.finishReason = choice.finish_reason;
      return result;
    }
  }
}
