// The LLM port: one chat-completion call, optionally constrained to a JSON schema. Adapters: groq-sdk and
// any OpenAI-compatible endpoint. Offline behaviour is not an LLM adapter: each LLM-driven step has its own
// deterministic port implementation (extractor, consolidator, observer, reflector, answerer).

export type LlmOperation = 'retain' | 'consolidation' | 'reflect' | 'threads';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export interface CompletionRequest {
  operation: LlmOperation;
  bankId?: string;
  messages: ChatMessage[];
  /** JSON schema the reply must match (constrained decoding where the provider has it, else JSON mode). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  maxTokens?: number;
}

export interface CompletionResult {
  text: string;
  usage: LlmUsage;
  provider: string;
  model: string;
  latencyMs: number;
  /** Why the model stopped ('stop', 'length', ...) when the provider says; 'length' means the reply was cut off. */
  finishReason?: string;
}

/** Per-call controls that are not part of what is asked: cancellation (and, through it, timeouts). */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface LlmProvider {
  readonly provider: string;
  readonly model: string;
  complete(request: CompletionRequest, options?: CallOptions): Promise<CompletionResult>;
}
