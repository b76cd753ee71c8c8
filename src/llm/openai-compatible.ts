// The OpenAI-compatible adapter: the LLM port on the official openai client, for OpenAI itself and for local
// or self-hosted servers that speak the same chat-completions protocol (Ollama, vLLM, LM Studio, llama.cpp).
// The SDK's own retries are off (resilience.ts owns them); ambient OPENAI_* settings are not picked up, so a
// key or organisation is only ever sent where it was configured.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ChatCompletionsProvider, type StructuredOutputMode } from './chat-completions.ts';
import { sdkCallError } from './errors.ts';

const SDK_ERRORS = { APIUserAbortError, APIConnectionTimeoutError, APIConnectionError, APIError };

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_DEFAULT_MODEL = 'gpt-4o-mini';

export interface OpenAiCompatibleProviderOptions {
  /** e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), http://localhost:8000/v1 (vLLM). */
  baseUrl: string;
  model: string;
  /** Optional: local servers usually need none, and then no Authorization header is sent. */
  apiKey?: string | null;
  /** Name recorded in results and the ledger (default 'openai-compatible'). */
  providerName?: string;
  /** Strongest mode to try first (default json_schema); steps down on a response_format refusal. */
  structuredOutput?: StructuredOutputMode;
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  strictSchema?: boolean;
  /** Backstop timeout inside the SDK; the per-call timeout lives in resilience.ts. */
  sdkTimeoutMs?: number;
}

export function createOpenAiCompatibleProvider(options: OpenAiCompatibleProviderOptions): ChatCompletionsProvider {
  const provider = options.providerName ?? 'openai-compatible';
  const who = { provider, model: options.model };
  const keyless = !options.apiKey;
  const client = new OpenAI({
    baseURL: options.baseUrl,
    // The SDK insists on a credential; without a key we give it a placeholder and drop the header below.
    apiKey: options.apiKey || 'unused',
    adminAPIKey: null,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: options.sdkTimeoutMs ?? 600_000,
    defaultHeaders: keyless ? { Authorization: null } : undefined,
  });
  return new ChatCompletionsProvider({
    provider,
    model: options.model,
    structuredOutput: options.structuredOutput ?? 'json_schema',
    maxTokensField: options.maxTokensField ?? 'max_tokens',
    strictSchema: options.strictSchema,
    transport: {
      send: (body, signal) => client.chat.completions.create({ ...body, stream: false }, { signal }),
      toCallError: (error) => sdkCallError(error, SDK_ERRORS, who),
    },
  });
}
