// The one configuration: every setting Cairn reads from the environment, parsed and checked once at start (the CLI
// entry, or whoever composes an engine) and handed to each module as its typed section. The only place that reads
// process.env. Every setting has a working offline default; a value that does not fit throws a ConfigError naming
// each variable to fix and what it allows.
import { CONSOLIDATE, type ConsolidateConfig } from './consolidate.ts';
import { EMBED, type EmbedConfig } from './embed.ts';
import { HTTP, type HttpConfig } from './http.ts';
import { LLM, type LlmConfig } from './llm.ts';
import { LOG, type LogConfig } from './log.ts';
import { RETAIN, type RetainConfig } from './retain.ts';
import { STORE, type StoreConfig } from './store.ts';
import { TELEMETRY, type TelemetryConfig } from './telemetry.ts';
import { ConfigError, type Env, type Section } from './variables.ts';

export type { ConsolidateConfig } from './consolidate.ts';
export type { EmbedConfig, EmbedderChoice, RerankerChoice } from './embed.ts';
export type { HttpConfig } from './http.ts';
export {
  LLM_OPERATIONS,
  PROVIDER_CHOICES,
  type LlmConfig,
  type LlmVariables,
  type ProviderChoice,
  type StructuredOutputMode,
} from './llm.ts';
export type { LogConfig, LogLevel } from './log.ts';
export type { RetainConfig } from './retain.ts';
export type { ServerStoreConfig, StoreConfig } from './store.ts';
export { hasServerEnv } from './store.ts';
export type { TelemetryConfig } from './telemetry.ts';
export { ConfigError, type Env } from './variables.ts';

export interface Config {
  http: HttpConfig;
  store: StoreConfig;
  embed: EmbedConfig;
  llm: LlmConfig;
  consolidate: ConsolidateConfig;
  retain: RetainConfig;
  log: LogConfig;
  telemetry: TelemetryConfig;
}

const SECTIONS: { [K in keyof Config]: Section<Config[K]> } = {
  http: HTTP,
  store: STORE,
  embed: EMBED,
  llm: LLM,
  consolidate: CONSOLIDATE,
  retain: RETAIN,
  log: LOG,
  telemetry: TELEMETRY,
};

/** Every variable the configuration reads (the README's configuration table lists each one). */
export const CONFIG_VARIABLES: readonly string[] = Object.values(SECTIONS).flatMap((s) => s.names);

/** The configuration from `env` (default: this process's environment). Throws a ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = <T>(section: Section<T>): T | undefined => {
    const result = section.read(env);
    if (result.ok) return result.value;
    problems.push(...result.problems);
    return undefined;
  };
  const config = {
    http: read(SECTIONS.http),
    store: read(SECTIONS.store),
    embed: read(SECTIONS.embed),
    llm: read(SECTIONS.llm),
    consolidate: read(SECTIONS.consolidate),
    retain: read(SECTIONS.retain),
    log: read(SECTIONS.log),
    telemetry: read(SECTIONS.telemetry),
  };
  if (problems.length) throw new ConfigError(problems.join('; '));
  return config as Config;
}
