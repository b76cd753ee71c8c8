// Which LLM each operation (retain, consolidation, reflect, threads) uses: the configuration's llm section
// (config/llm.ts: CAIRN_LLM_* with a CAIRN_<OP>_LLM_* override for every setting), overridable per bank by its
// config's `llm` section (provider, model, base URL only: API keys live in the environment, never in bank config).
// resolveLlm builds the provider (adapter + resilience, one concurrency limit per endpoint) or returns null for the
// offline path.
import { z } from 'zod';
import { CairnError, type BankConfig } from '../core/index.ts';
import { LLM_OPERATIONS, PROVIDER_CHOICES, type LlmConfig, type LlmVariables, type ProviderChoice } from '../config/index.ts';
import type { LlmOperation, LlmProvider } from './ports.ts';
import type { StructuredOutputMode } from './chat-completions.ts';
import { createGroqProvider, GROQ_DEFAULT_BASE_URL, GROQ_DEFAULT_MODEL } from './groq.ts';
import { createOpenAiCompatibleProvider, OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_MODEL } from './openai-compatible.ts';
import { RESILIENCE_DEFAULTS, sharedLimiter, withResilience } from './resilience.ts';
import { withLedger, type UsageLedger } from './ledger.ts';

export type LlmProviderName = 'groq' | 'openai' | 'openai-compatible';

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

/** The key a provider's well-known variable holds. */
function wellKnownKey(llm: LlmConfig, provider: LlmProviderName): string | undefined {
  return provider === 'groq' ? llm.groqApiKey : provider === 'openai' ? llm.openaiApiKey : undefined;
}

/** An operation's setting (CAIRN_<OP>_LLM_<NAME>), else the shared one (CAIRN_LLM_<NAME>; only that for null). */
function lookup<K extends keyof LlmVariables>(llm: LlmConfig, operation: LlmOperation | null, name: K): LlmVariables[K] {
  return (operation ? llm.operations[operation][name] : undefined) ?? llm.shared[name];
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
  llm: LlmConfig,
  choice: ProviderChoice | undefined,
  baseUrl: string | undefined,
): Endpoint | null {
  if (choice === 'offline') return null;
  let provider: LlmProviderName;
  if (choice) provider = choice;
  else if (baseUrl) provider = 'openai-compatible';
  else if (lookup(llm, operation, 'apiKey') || llm.groqApiKey) provider = 'groq';
  else return null;
  const url = baseUrl ?? DEFAULT_BASE_URL[provider];
  if (!url) throw configError(`${operation ?? 'default'}: provider ${provider} needs a base URL (CAIRN_LLM_BASE_URL)`);
  return { provider, baseUrl: url };
}

/** The endpoint the environment gives an operation (or, for null, the global CAIRN_LLM_* settings alone). */
function envEndpoint(operation: LlmOperation | null, llm: LlmConfig): Endpoint | null {
  return endpointOf(operation, llm, lookup(llm, operation, 'provider'), lookup(llm, operation, 'baseUrl'));
}

function globalEndpoint(llm: LlmConfig): Endpoint | null {
  try {
    return envEndpoint(null, llm);
  } catch {
    return null; // an incomplete global setting only matters to operations that use it
  }
}

/** The bank's override for one operation, validated (throws a 400 naming the problem). */
export function bankOverride(operation: LlmOperation, bankConfig: BankConfig | undefined): z.infer<typeof bankOverrideSchema> | undefined {
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
export function readLlmSettings(operation: LlmOperation, bankConfig: BankConfig | undefined, llm: LlmConfig): LlmSettings | null {
  const bank = bankOverride(operation, bankConfig);
  const fromEnv = envEndpoint(operation, llm);
  const bankMovesEndpoint = bank?.provider !== undefined || bank?.baseUrl !== undefined;
  let endpoint = fromEnv;
  if (bankMovesEndpoint) {
    endpoint = endpointOf(
      operation,
      llm,
      bank?.provider ?? lookup(llm, operation, 'provider'),
      bank?.baseUrl ?? lookup(llm, operation, 'baseUrl'),
    );
  }
  if (!endpoint) return null;

  const model = bank?.model ?? lookup(llm, operation, 'model') ?? DEFAULT_MODEL[endpoint.provider];
  if (!model)
    throw configError(
      `${operation}: no model for ${endpoint.baseUrl}; set CAIRN_LLM_MODEL (or CAIRN_${operation.toUpperCase()}_LLM_MODEL)`,
    );

  const wellKnownVar = WELL_KNOWN_KEY[endpoint.provider];
  const wellKnown = wellKnownKey(llm, endpoint.provider);
  let apiKey: string | undefined;
  if (sameEndpoint(fromEnv, endpoint)) {
    // The operation's own key; else the global key, if the operation uses the global endpoint; else the
    // provider's well-known variable.
    apiKey = llm.operations[operation].apiKey ?? (sameEndpoint(globalEndpoint(llm), endpoint) ? llm.shared.apiKey : undefined) ?? wellKnown;
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

  return {
    operation,
    provider: endpoint.provider,
    model,
    baseUrl: endpoint.baseUrl,
    apiKey: apiKey ?? null,
    structuredOutput: lookup(llm, operation, 'structuredOutput'),
    timeoutMs: lookup(llm, operation, 'timeoutMs') ?? RESILIENCE_DEFAULTS.timeoutMs,
    retries: lookup(llm, operation, 'maxRetries') ?? RESILIENCE_DEFAULTS.retries,
    concurrency: lookup(llm, operation, 'concurrency') ?? RESILIENCE_DEFAULTS.concurrency,
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
  /** The configuration's llm section. */
  llm: LlmConfig;
  /** Record every call to this ledger (do not also pass it to generateObject; it would be ignored there). */
  ledger?: UsageLedger;
}

const providers = new Map<string, LlmProvider>();

/**
 * The provider for an operation (adapter + timeouts/retries + the endpoint's shared concurrency limit), or null
 * when the operation runs offline. The same settings give the same instance.
 */
export function resolveLlm(operation: LlmOperation, bankConfig: BankConfig | undefined, options: ResolveLlmOptions): LlmProvider | null {
  const settings = readLlmSettings(operation, bankConfig, options.llm);
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
export function describeLlm(llm: LlmConfig): string {
  const all = LLM_OPERATIONS.map((operation) => ({ operation, text: describeSettings(readLlmSettings(operation, undefined, llm)) }));
  const counts = new Map<string, number>();
  for (const { text } of all) counts.set(text, (counts.get(text) ?? 0) + 1);
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  const head =
    main === 'offline'
      ? llm.shared.provider === 'offline'
        ? 'offline (CAIRN_LLM_PROVIDER=offline)'
        : 'offline (no GROQ_API_KEY or CAIRN_LLM_BASE_URL)'
      : main;
  const others = all.filter((d) => d.text !== main).map((d) => `${d.operation}: ${d.text}`);
  return `llm: ${[head, ...others].join('; ')}`;
}
