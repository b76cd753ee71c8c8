// Which LLM each operation (retain, consolidation, reflect, threads) uses: read from the environment, with a
// per-operation override for every setting, and overridable per bank by its config's `llm` section (provider,
// model, base URL only: API keys live in the environment, never in bank config). resolveLlm builds the
// provider (adapter + resilience, one concurrency limit per endpoint) or returns null for the offline path.
//
// Environment (CAIRN_<OP>_LLM_<NAME> beats CAIRN_LLM_<NAME>; OP is RETAIN, CONSOLIDATION, REFLECT, THREADS):
//   PROVIDER           groq | openai | openai-compatible | offline (default: openai-compatible when a base
//                      URL is set, else groq when a key is set, else offline)
//   MODEL              default llama-3.3-70b-versatile (groq), gpt-4o-mini (openai); required otherwise
//   BASE_URL           server root for groq, .../v1 for OpenAI-compatible servers
//   API_KEY            falls back to GROQ_API_KEY (groq) or OPENAI_API_KEY (openai); optional for local servers
//   STRUCTURED_OUTPUT  json_schema | json_object | text (strongest mode to try; default depends on provider)
//   TIMEOUT_MS, MAX_RETRIES, CONCURRENCY
import { z } from 'zod';
import { CairnError } from '../core/errors.ts';
import type { BankConfig } from '../core/types.ts';
import type { LlmOperation, LlmProvider } from './ports.ts';
import { STRUCTURED_OUTPUT_MODES, type StructuredOutputMode } from './chat-completions.ts';
import { createGroqProvider, GROQ_DEFAULT_BASE_URL, GROQ_DEFAULT_MODEL } from './groq.ts';
import { createOpenAiCompatibleProvider, OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_MODEL } from './openai-compatible.ts';
import { RESILIENCE_DEFAULTS, sharedLimiter, withResilience } from './resilience.ts';
import { withLedger, type UsageLedger } from './ledger.ts';

export const LLM_OPERATIONS: readonly LlmOperation[] = ['retain', 'consolidation', 'reflect', 'threads'];

export type LlmProviderName = 'groq' | 'openai' | 'openai-compatible';
const PROVIDER_CHOICES = ['groq', 'openai', 'openai-compatible', 'offline'] as const;
type ProviderChoice = (typeof PROVIDER_CHOICES)[number];

/** Everything needed to build one operation's provider. */
export interface LlmSettings {
  operation: LlmOperation;
  provider: LlmProviderName;
  model: string;
  baseUrl: string;
  apiKey: string | null;
  structuredOutput: StructuredOutputMode | undefined;
  timeoutMs: number;
  retries: number;
  concurrency: number;
}

const bankOverrideSchema = z.strictObject({
  provider: z.enum(PROVIDER_CHOICES).optional(),
  model: z.string().min(1).optional(),
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
});

/** Shape of a bank config's `llm` section. Strict: an apiKey (or any unknown key) is refused. */
export const bankLlmConfigSchema = z.strictObject({
  retain: bankOverrideSchema.optional(),
  consolidation: bankOverrideSchema.optional(),
  reflect: bankOverrideSchema.optional(),
  threads: bankOverrideSchema.optional(),
});

export type BankLlmConfig = z.infer<typeof bankLlmConfigSchema>;

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_BASE_URL: Record<LlmProviderName, string | undefined> = {
  groq: GROQ_DEFAULT_BASE_URL,
  openai: OPENAI_DEFAULT_BASE_URL,
  'openai-compatible': undefined,
};
const DEFAULT_MODEL: Record<LlmProviderName, string | undefined> = {
  groq: GROQ_DEFAULT_MODEL,
  openai: OPENAI_DEFAULT_MODEL,
  'openai-compatible': undefined,
};
const WELL_KNOWN_KEY: Record<LlmProviderName, string | undefined> = {
  groq: 'GROQ_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': undefined,
};

const configError = (message: string): CairnError => new CairnError('bad_request', `llm configuration: ${message}`);

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** CAIRN_<OP>_LLM_<NAME>, else CAIRN_LLM_<NAME> (only the latter when operation is null), with its source. */
function lookup(env: Env, operation: LlmOperation | null, name: string): { value: string; from: string } | undefined {
  const variables = operation ? [`CAIRN_${operation.toUpperCase()}_LLM_${name}`] : [];
  variables.push(`CAIRN_LLM_${name}`);
  for (const variable of variables) {
    const value = read(env, variable);
    if (value !== undefined) return { value, from: variable };
  }
  return undefined;
}

function providerChoice(value: string, source: string): ProviderChoice {
  if ((PROVIDER_CHOICES as readonly string[]).includes(value)) return value as ProviderChoice;
  throw configError(`${source}='${value}' is not one of ${PROVIDER_CHOICES.join(', ')}`);
}

function positiveInt(env: Env, operation: LlmOperation, name: string, fallback: number, min: number): number {
  const found = lookup(env, operation, name);
  if (!found) return fallback;
  const n = Number(found.value);
  if (!Number.isInteger(n) || n < min) throw configError(`${found.from}='${found.value}' must be an integer >= ${min}`);
  return n;
}

interface Endpoint {
  provider: LlmProviderName;
  baseUrl: string;
}

const sameEndpoint = (a: Endpoint | null, b: Endpoint): boolean =>
  a !== null && a.provider === b.provider && a.baseUrl.replace(/\/+$/, '') === b.baseUrl.replace(/\/+$/, '');

/** Provider and base URL from explicit choices, inferring the provider when none is named. Null: offline. */
function endpointOf(
  operation: LlmOperation | null,
  env: Env,
  choice: ProviderChoice | undefined,
  baseUrl: string | undefined,
): Endpoint | null {
  if (choice === 'offline') return null;
  let provider: LlmProviderName;
  if (choice) provider = choice;
  else if (baseUrl) provider = 'openai-compatible';
  else if (lookup(env, operation, 'API_KEY') || read(env, 'GROQ_API_KEY')) provider = 'groq';
  else return null;
  const url = baseUrl ?? DEFAULT_BASE_URL[provider];
  if (!url) throw configError(`${operation ?? 'default'}: provider ${provider} needs a base URL (CAIRN_LLM_BASE_URL)`);
  return { provider, baseUrl: url };
}

/** The endpoint the environment gives an operation (or, for null, the global CAIRN_LLM_* settings alone). */
function envEndpoint(operation: LlmOperation | null, env: Env): Endpoint | null {
  const choice = lookup(env, operation, 'PROVIDER');
  return endpointOf(
    operation,
    env,
    choice ? providerChoice(choice.value, choice.from) : undefined,
    lookup(env, operation, 'BASE_URL')?.value,
  );
}

function globalEndpoint(env: Env): Endpoint | null {
  try {
    return envEndpoint(null, env);
  } catch {
    return null; // an incomplete global setting only matters to operations that use it
  }
}

/** The bank's override for one operation, validated (throws a 400 naming the problem). */
export function bankOverride(
  operation: LlmOperation,
  bankConfig: BankConfig | undefined,
): z.infer<typeof bankOverrideSchema> | undefined {
  if (bankConfig?.llm === undefined) return undefined;
  const parsed = bankLlmConfigSchema.safeParse(bankConfig.llm);
  if (!parsed.success) {
    const issues = z.prettifyError(parsed.error);
    throw new CairnError('bad_request', `bank config 'llm' is invalid (API keys are not allowed there):\n${issues}`);
  }
  return parsed.data[operation];
}

/**
 * The settings of one operation's LLM, or null when it runs offline. A key is only ever sent to the endpoint
 * the environment configured it for (or a provider's official endpoint with its well-known key variable):
 * a bank that points an operation elsewhere gets no key.
 */
export function readLlmSettings(
  operation: LlmOperation,
  bankConfig?: BankConfig,
  env: Env = process.env,
): LlmSettings | null {
  const bank = bankOverride(operation, bankConfig);
  const fromEnv = envEndpoint(operation, env);
  const bankMovesEndpoint = bank?.provider !== undefined || bank?.baseUrl !== undefined;
  let endpoint = fromEnv;
  if (bankMovesEndpoint) {
    const choice = lookup(env, operation, 'PROVIDER');
    endpoint = endpointOf(
      operation,
      env,
      bank?.provider ?? (choice ? providerChoice(choice.value, choice.from) : undefined),
      bank?.baseUrl ?? lookup(env, operation, 'BASE_URL')?.value,
    );
  }
  if (!endpoint) return null;

  const model = bank?.model ?? lookup(env, operation, 'MODEL')?.value ?? DEFAULT_MODEL[endpoint.provider];
  if (!model) throw configError(`${operation}: no model for ${endpoint.baseUrl}; set CAIRN_LLM_MODEL (or CAIRN_${operation.toUpperCase()}_LLM_MODEL)`);

  const wellKnownVar = WELL_KNOWN_KEY[endpoint.provider];
  const wellKnown = wellKnownVar ? read(env, wellKnownVar) : undefined;
  let apiKey: string | undefined;
  if (sameEndpoint(fromEnv, endpoint)) {
    // The operation's own key; else the global key, if the operation uses the global endpoint; else the
    // provider's well-known variable.
    apiKey =
      read(env, `CAIRN_${operation.toUpperCase()}_LLM_API_KEY`) ??
      (sameEndpoint(globalEndpoint(env), endpoint) ? read(env, 'CAIRN_LLM_API_KEY') : undefined) ??
      wellKnown;
  } else if (endpoint.baseUrl === DEFAULT_BASE_URL[endpoint.provider]) {
    apiKey = wellKnown;
  }
  if (!apiKey && endpoint.provider !== 'openai-compatible') {
    const hint = sameEndpoint(fromEnv, endpoint)
      ? `set ${wellKnownVar} or CAIRN_LLM_API_KEY`
      : endpoint.baseUrl === DEFAULT_BASE_URL[endpoint.provider]
        ? `set ${wellKnownVar}`
        : 'keys are only sent to endpoints configured in the environment';
    throw configError(`${operation}: ${endpoint.provider} at ${endpoint.baseUrl} needs an API key (${hint})`);
  }

  const mode = lookup(env, operation, 'STRUCTURED_OUTPUT');
  if (mode && !(STRUCTURED_OUTPUT_MODES as readonly string[]).includes(mode.value)) {
    throw configError(`${mode.from}='${mode.value}' is not one of ${STRUCTURED_OUTPUT_MODES.join(', ')}`);
  }

  return {
    operation,
    provider: endpoint.provider,
    model,
    baseUrl: endpoint.baseUrl,
    apiKey: apiKey ?? null,
    structuredOutput: mode?.value as StructuredOutputMode | undefined,
    timeoutMs: positiveInt(env, operation, 'TIMEOUT_MS', RESILIENCE_DEFAULTS.timeoutMs, 1),
    retries: positiveInt(env, operation, 'MAX_RETRIES', RESILIENCE_DEFAULTS.retries, 0),
    concurrency: positiveInt(env, operation, 'CONCURRENCY', RESILIENCE_DEFAULTS.concurrency, 1),
  };
}

/** Builds the adapter for settings (no resilience, no ledger). */
export function createAdapter(settings: LlmSettings): LlmProvider {
  if (settings.provider === 'groq') {
    return createGroqProvider({
      apiKey: settings.apiKey ?? '',
      model: settings.model,
      baseUrl: settings.baseUrl,
      structuredOutput: settings.structuredOutput,
    });
  }
  return createOpenAiCompatibleProvider({
    providerName: settings.provider,
    baseUrl: settings.baseUrl,
    model: settings.model,
    apiKey: settings.apiKey,
    structuredOutput: settings.structuredOutput,
  });
}

export interface ResolveLlmOptions {
  env?: Env;
  /** Record every call to this ledger (do not also pass it to generateObject; it would be ignored there). */
  ledger?: UsageLedger;
}

const providers = new Map<string, LlmProvider>();

/**
 * The provider for an operation (adapter + timeouts/retries + the endpoint's shared concurrency limit), or null
 * when the operation runs offline. The same settings give the same instance.
 */
export function resolveLlm(
  operation: LlmOperation,
  bankConfig?: BankConfig,
  options: ResolveLlmOptions = {},
): LlmProvider | null {
  const settings = readLlmSettings(operation, bankConfig, options.env ?? process.env);
  if (!settings) return null;
  const { operation: _op, ...shape } = settings;
  const key = JSON.stringify(shape);
  let provider = providers.get(key);
  if (!provider) {
    provider = withResilience(createAdapter(settings), {
      timeoutMs: settings.timeoutMs,
      retries: settings.retries,
      limiter: sharedLimiter(`${settings.provider} ${settings.baseUrl}`, settings.concurrency),
    });
    providers.set(key, provider);
  }
  return options.ledger ? withLedger(provider, options.ledger) : provider;
}

function describeSettings(settings: LlmSettings | null): string {
  if (!settings) return 'offline';
  const official = settings.baseUrl === DEFAULT_BASE_URL[settings.provider];
  return official ? `${settings.provider} ${settings.model}` : `${settings.provider} ${settings.model} at ${safeUrl(settings.baseUrl)}`;
}

/** A URL fit for logs: no credentials, query or fragment. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * One line for the start-up log, e.g. "llm: groq llama-3.3-70b-versatile", or
 * "llm: offline (no GROQ_API_KEY or CAIRN_LLM_BASE_URL)"; operations that differ are listed after a ';'.
 * Throws on a configuration that cannot work, so start-up fails early.
 */
export function describeLlm(env: Env = process.env): string {
  const all = LLM_OPERATIONS.map((operation) => ({ operation, text: describeSettings(readLlmSettings(operation, undefined, env)) }));
  const counts = new Map<string, number>();
  for (const { text } of all) counts.set(text, (counts.get(text) ?? 0) + 1);
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const head =
    main === 'offline'
      ? read(env, 'CAIRN_LLM_PROVIDER') === 'offline'
        ? 'offline (CAIRN_LLM_PROVIDER=offline)'
        : 'offline (no GROQ_API_KEY or CAIRN_LLM_BASE_URL)'
      : main;
  const others = all.filter((d) => d.text !== main).map((d) => `${d.operation}: ${d.text}`);
  return `llm: ${[head, ...others].join('; ')}`;
}
