// The Groq adapter: the LLM port on the official groq-sdk client. The SDK's own retries are switched off
// (resilience.ts owns retries, backoff and timeouts); its errors are translated into LlmCallError.
import Groq, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'groq-sdk';
import { ChatCompletionsProvider, type StructuredOutputMode } from './chat-completions.ts';
import { sdkCallError } from './errors.ts';

const SDK_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError };

export const GROQ_DEFAULT_BASE_URL = 'https://api.groq.com';
export const GROQ_DEFAULT_MODEL = 'llama-3.3-70b-versatile';

/** Groq models documented with json_schema structured outputs; others start at JSON mode. */
const GROQ_JSON_SCHEMA_MODELS: readonly string[] = [
  'openai/gpt-oss-20b',
  'openai/gpt-oss-120b',
  'moonshotai/kimi-k2-instruct',
  'moonshotai/kimi-k2-instruct-0905',
  'meta-llama/llama-4-maverick-17b-128e-instruct',
  'meta-llama/llama-4-scout-17b-16e-instruct',
];

export interface GroqProviderOptions {
  apiKey: string;
  model?: string;
  /** Server root (the SDK appends /openai/v1/chat/completions); a trailing /openai/v1 is tolerated. */
  baseUrl?: string;
  /** Overrides the per-model default (json_schema for models that have it, else json_object). */
  structuredOutput?: StructuredOutputMode;
  /** Backstop timeout inside the SDK; the per-call timeout lives in resilience.ts. */
  sdkTimeoutMs?: number;
}

export function groqStructuredOutputDefault(model: string): StructuredOutputMode {
  return GROQ_JSON_SCHEMA_MODELS.includes(model) ? 'json_schema' : 'json_object';
}

export function createGroqProvider(options: GroqProviderOptions): ChatCompletionsProvider {
  const model = options.model ?? GROQ_DEFAULT_MODEL;
  const who = { provider: 'groq', model };
  const baseURL = (options.baseUrl ?? GROQ_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/openai\/v1$/, '');
  const client = new Groq({ apiKey: options.apiKey, baseURL, maxRetries: 0, timeout: options.sdkTimeoutMs ?? 600_000 });
  return new ChatCompletionsProvider({
    provider: 'groq',
    model,
    structuredOutput: options.structuredOutput ?? groqStructuredOutputDefault(model),
    maxTokensField: 'max_completion_tokens',
    transport: {
      send: (body, signal) => client.chat.completions.create({ ...body, stream: false }, { signal }),
      toCallError: (error) => sdkCallError(error, SDK_ERRORS, who),
    },
  });
}
