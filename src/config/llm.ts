// Which LLM each operation may use (llm/config.ts turns this, with a bank's own `llm` overrides, into providers).
// CAIRN_<OP>_LLM_<NAME> beats CAIRN_LLM_<NAME>; OP is RETAIN, CONSOLIDATION, REFLECT or THREADS:
//   PROVIDER           groq | openai | openai-compatible | offline (default: openai-compatible when a base
//                      URL is set, else groq when a key is set, else offline)
//   MODEL              default llama-3.3-70b-versatile (groq), gpt-4o-mini (openai); required otherwise
//   BASE_URL           server root for groq, .../v1 for OpenAI-compatible servers
//   API_KEY            falls back to GROQ_API_KEY (groq) or OPENAI_API_KEY (openai); optional for local servers
//   STRUCTURED_OUTPUT  json_schema | json_object | text (strongest mode to try; default depends on provider)
//   TIMEOUT_MS (>= 1), MAX_RETRIES (>= 0), CONCURRENCY (>= 1): defaults in llm/resilience.ts
// Unset settings stay undefined here: which default applies depends on the provider an operation ends up with.
import { z } from 'zod';
import type { LlmOperation } from '../llm/index.ts';
import { integer, oneOf, section, text } from './variables.ts';

/**
 * How a JSON reply is asked for. json_schema: constrained decoding against the schema; json_object: "JSON mode"
 * (valid JSON, shape steered by the prompt); text: no response_format at all, shape steered by the prompt and
 * recovered by tolerant parsing.
 */
export type StructuredOutputMode = 'json_schema' | 'json_object' | 'text';

export const STRUCTURED_OUTPUT_MODES: readonly StructuredOutputMode[] = ['json_schema', 'json_object', 'text'];

export const LLM_OPERATIONS = ['retain', 'consolidation', 'reflect', 'threads'] as const satisfies readonly LlmOperation[];

export const PROVIDER_CHOICES = ['groq', 'openai', 'openai-compatible', 'offline'] as const;
export type ProviderChoice = (typeof PROVIDER_CHOICES)[number];

/** The settings of one group of variables (CAIRN_LLM_* or one operation's CAIRN_<OP>_LLM_*); unset is undefined. */
export interface LlmVariables {
  provider: ProviderChoice | undefined;
  model: string | undefined;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  structuredOutput: StructuredOutputMode | undefined;
  timeoutMs: number | undefined;
  maxRetries: number | undefined;
  concurrency: number | undefined;
}

export interface LlmConfig {
  /** CAIRN_LLM_*: every operation's, unless its own variable says otherwise. */
  shared: LlmVariables;
  /** CAIRN_<OP>_LLM_*. */
  operations: Record<LlmOperation, LlmVariables>;
  groqApiKey: string | undefined;
  openaiApiKey: string | undefined;
}

const MODES = STRUCTURED_OUTPUT_MODES as readonly StructuredOutputMode[] as [StructuredOutputMode, ...StructuredOutputMode[]];

const GROUP = {
  PROVIDER: oneOf(PROVIDER_CHOICES),
  MODEL: text(),
  BASE_URL: text(),
  API_KEY: text(),
  STRUCTURED_OUTPUT: oneOf(MODES),
  TIMEOUT_MS: integer(1),
  MAX_RETRIES: integer(0),
  CONCURRENCY: integer(1),
};
type Group = typeof GROUP;

/** The group's variables under a prefix: { CAIRN_LLM_PROVIDER: ..., ... }. */
function prefixed<P extends string>(prefix: P): { [K in keyof Group as `${P}${K}`]: Group[K] } {
  return Object.fromEntries(Object.entries(GROUP).map(([name, schema]) => [`${prefix}${name}`, schema])) as {
    [K in keyof Group as `${P}${K}`]: Group[K];
  };
}

const prefixOf = (operation: LlmOperation): string => `CAIRN_${operation.toUpperCase()}_LLM_`;

function group(values: Readonly<Record<string, unknown>>, prefix: string): LlmVariables {
  const get = <K extends keyof Group>(name: K) => values[`${prefix}${name}`] as z.output<Group[K]>;
  return {
    provider: get('PROVIDER'),
    model: get('MODEL'),
    baseUrl: get('BASE_URL'),
    apiKey: get('API_KEY'),
    structuredOutput: get('STRUCTURED_OUTPUT'),
    timeoutMs: get('TIMEOUT_MS'),
    maxRetries: get('MAX_RETRIES'),
    concurrency: get('CONCURRENCY'),
  };
}

export const LLM = section(
  z.object({
    GROQ_API_KEY: text(),
    OPENAI_API_KEY: text(),
    ...prefixed('CAIRN_LLM_'),
    ...prefixed('CAIRN_RETAIN_LLM_'),
    ...prefixed('CAIRN_CONSOLIDATION_LLM_'),
    ...prefixed('CAIRN_REFLECT_LLM_'),
    ...prefixed('CAIRN_THREADS_LLM_'),
  }),
  (v): LlmConfig => ({
    shared: group(v, 'CAIRN_LLM_'),
    operations: Object.fromEntries(LLM_OPERATIONS.map((operation) => [operation, group(v, prefixOf(operation))])) as Record<
      LlmOperation,
      LlmVariables
    >,
    groqApiKey: v.GROQ_API_KEY,
    openaiApiKey: v.OPENAI_API_KEY,
  }),
);
