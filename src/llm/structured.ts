// Typed replies from an LLM: generateObject sends the zod schema as JSON schema, recovers the JSON from the
// reply tolerantly, validates it with zod, and on failure asks once more, showing the model its reply and
// what was wrong. If that fails too it throws LlmOutputError: it never returns unvalidated data.
import { z } from 'zod';
import type { CallOptions, ChatMessage, CompletionRequest, CompletionResult, LlmProvider, LlmUsage } from './ports.ts';
import { LlmOutputError } from './errors.ts';
import { withLedger, type UsageLedger } from './ledger.ts';
import { parseTolerantJson } from './tolerant-json.ts';

export type ObjectRequest = Omit<CompletionRequest, 'jsonSchema'> & {
  /** Name of the schema sent to the provider (letters, digits, _ and -; default 'result'). */
  schemaName?: string;
};

export interface GenerateObjectOptions extends CallOptions {
  /** Records each call (both attempts when the first fails) to this ledger. */
  ledger?: UsageLedger;
}

export interface GeneratedObject<T> {
  value: T;
  /** Tokens of every attempt, summed. */
  usage: LlmUsage;
  /** 1, or 2 when the first reply had to be corrected. */
  attempts: number;
  provider: string;
  model: string;
}

/** Longest previous reply shown back to the model in the corrective retry. */
const MAX_ECHOED_REPLY_CHARS = 8_000;

const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The JSON schema of what the model must write (zod's input side), without the $schema marker. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    json = rest;
    jsonSchemas.set(schema, json);
  }
  return json;
}

type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

function check<T>(schema: z.ZodType<T>, result: CompletionResult): Checked<T> {
  const parsed = parseTolerantJson(result.text);
  let problem: string;
  if (!parsed.ok) {
    problem = parsed.error;
  } else {
    const validated = schema.safeParse(parsed.value);
    if (validated.success) return { ok: true, value: validated.data };
    problem = `the JSON does not match the schema:\n${z.prettifyError(validated.error)}`;
  }
  if (result.finishReason === 'length') problem += ' (the reply was cut off at the token limit)';
  return { ok: false, problem };
}

export function correctionMessages(previousReply: string, problem: string): ChatMessage[] {
  const echoed =
    previousReply.length > MAX_ECHOED_REPLY_CHARS
      ? `${previousReply.slice(0, MAX_ECHOED_REPLY_CHARS)}\n[... reply truncated ...]`
      : previousReply;
  return [
    { role: 'assistant', content: echoed },
    {
      role: 'user',
      content:
        `Your previous reply could not be used: ${problem}\n` +
        'Reply again with only the corrected JSON, matching the schema exactly: no prose, no code fences.',
    },
  ];
}

const addUsage = (a: LlmUsage, b: LlmUsage): LlmUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cachedTokens: a.cachedTokens + b.cachedTokens,
});

export async function generateObject<T>(
  provider: LlmProvider,
  request: ObjectRequest,
  schema: z.ZodType<T>,
  options: GenerateObjectOptions = {},
): Promise<GeneratedObject<T>> {
  const llm = options.ledger ? withLedger(provider, options.ledger) : provider;
  const { schemaName = 'result', ...rest } = request;
  const base: CompletionRequest = { ...rest, jsonSchema: { name: schemaName, schema: jsonSchemaOf(schema) } };
  const callOptions: CallOptions = options.signal ? { signal: options.signal } : {};

  const first = await llm.complete(base, callOptions);
  const firstCheck = check(schema, first);
  if (firstCheck.ok) {
    return { value: firstCheck.value, usage: first.usage, attempts: 1, provider: first.provider, model: first.model };
  }

  const retry: CompletionRequest = {
    ...base,
    messages: [...base.messages, ...correctionMessages(first.text, firstCheck.problem)],
  };
  const second = await llm.complete(retry, callOptions);
  const usage = addUsage(first.usage, second.usage);
  const secondCheck = check(schema, second);
  if (secondCheck.ok) {
    return { value: secondCheck.value, usage, attempts: 2, provider: second.provider, model: second.model };
  }
  throw new LlmOutputError({
    provider: second.provider,
    model: second.model,
    operation: request.operation,
    problem: secondCheck.problem,
    reply: second.text,
    attempts: 2,
    usage,
  });
}
