// Thread memory settings: their schema (per bank in bank.config.threads, overridable per thread), defaults,
// and resolution into absolute token numbers. Settings that cannot work together are refused with a message
// that says which values clash and what to change.
import { z } from 'zod';
import { badRequest } from '../core/index.ts';

/** The largest number any setting takes: far above any model's context, and small enough to compute with. */
export const MAX_SETTING = 1_000_000_000;

/** A number no larger than MAX_SETTING. */
const bounded = (field: string) =>
  z.number({ error: `${field} must be a number` }).max(MAX_SETTING, { error: `${field} must be at most ${MAX_SETTING}` });

/** A whole number from min to MAX_SETTING; the size is checked first, so a huge whole number is told its size, not its form. */
const whole = (field: string, min: number) =>
  z
    .number({ error: `${field} must be a number` })
    .max(MAX_SETTING, { error: `${field} must be at most ${MAX_SETTING}`, abort: true })
    .int({ error: `${field} must be a whole number` })
    .min(min, { error: `${field} must be ${min} or more` });

export const ThreadSettingsSchema = z
  .strictObject({
    /** thread: observations per thread; resource: pooled across the threads of one resourceId. */
    scope: z.enum(['thread', 'resource']),
    /** Observe when unobserved message tokens exceed this. */
    messageTokens: whole('messageTokens', 1),
    /** Reflect when active observation tokens exceed this (0: never reflect). */
    observationTokens: whole('observationTokens', 0),
    /** Condense reflections of one generation into the next once there are this many (0: never; 1 is refused). */
    reflectionConsolidationThreshold: whole('reflectionConsolidationThreshold', 0).refine((v) => v !== 1, {
      error:
        'reflectionConsolidationThreshold must be 0 (never consolidate) or at least 2: one reflection cannot be condensed into a new generation of itself',
    }),
    maxObservationsInContext: whole('maxObservationsInContext', 0),
    maxReflectionsInContext: whole('maxReflectionsInContext', 0),
    /** Tokens for the memory prefix (0: unlimited). */
    memoryTokenBudget: whole('memoryTokenBudget', 0),
    /** Tokens for the raw message tail (0: unlimited; default: blockAfter's token count, the most raw messages memory lets pile up). */
    messageTokenBudget: whole('messageTokenBudget', 0),
    /** Background observation interval: a fraction (0..1) of messageTokens or an absolute token count; false or 0: off. */
    bufferTokens: z.union([z.literal(false), bounded('bufferTokens').min(0, { error: 'bufferTokens must be 0 or more (or false)' })]),
    /** On activation, a ratio (0..1] of messageTokens to remove, or an absolute count (> 1) of message tokens to keep raw. */
    bufferActivation: bounded('bufferActivation').gt(0, { error: 'bufferActivation must be above 0' }),
    /** Force a synchronous observation above this: a multiplier (1..2) of messageTokens or an absolute count. */
    blockAfter: bounded('blockAfter').gt(1, {
      error: 'blockAfter must be above 1 (a multiplier of messageTokens between 1 and 2, or a token count)',
    }),
    /** Start background reflection at this fraction (0..1) of observationTokens; false or 0: off. */
    reflectionBufferActivation: z.union([
      z.literal(false),
      z.number().min(0).lt(1, { error: 'reflectionBufferActivation must be a fraction below 1 (or false)' }),
    ]),
    /** Force a synchronous reflection above this: a multiplier (1..2) of observationTokens or an absolute count. */
    reflectionBlockAfter: bounded('reflectionBlockAfter').gt(1, { error: 'reflectionBlockAfter must be above 1' }),
    /** auto: the LLM when one is configured for threads, else offline. */
    observer: z.enum(['auto', 'offline', 'llm']),
    observerInstructions: z.string().max(4000),
    reflectorInstructions: z.string().max(4000),
    workingMemory: z
      .strictObject({
        enabled: z.boolean(),
        /** resource (default): one document per resourceId, or per thread when the thread has none. */
        scope: z.enum(['thread', 'resource']),
        template: z.string().max(8000),
        /** Update the document after every turn. */
        autoUpdate: z.boolean(),
        /** Cap of the document (0: unlimited). */
        maxTokens: whole('workingMemory.maxTokens', 0),
      })
      .partial(),
    /** Retain the thread's messages, or its observations, as facts of the bank. */
    bridge: z.enum(['off', 'messages', 'observations']),
  })
  .partial();

export type ThreadSettingsInput = z.infer<typeof ThreadSettingsSchema>;

export interface WorkingMemorySettings {
  enabled: boolean;
  scope: 'thread' | 'resource';
  template: string;
  autoUpdate: boolean;
  maxTokens: number;
}

/** Settings as numbers the pipeline uses directly (0 = off / unlimited where noted). */
export interface ResolvedThreadSettings {
  scope: 'thread' | 'resource';
  messageTokens: number;
  observationTokens: number;
  reflectionConsolidationThreshold: number;
  maxObservationsInContext: number;
  maxReflectionsInContext: number;
  memoryTokenBudget: number;
  messageTokenBudget: number;
  /** Background observation interval in tokens (0: no buffering). */
  bufferTokens: number;
  /** As set (or defaulted); keepTokens is what it comes to. */
  bufferActivation: number;
  /** As set (or defaulted); blockAfterTokens is what it comes to. */
  blockAfter: number;
  /** As set (or defaulted); reflectionBufferTokens is what it comes to. */
  reflectionBufferActivation: number | false;
  /** As set (or defaulted); reflectionBlockAfterTokens is what it comes to. */
  reflectionBlockAfter: number;
  /** Raw message tokens left unobserved after an activation or a synchronous observation. */
  keepTokens: number;
  /** Above this many unobserved tokens a synchronous observation runs (messageTokens without buffering). */
  blockAfterTokens: number;
  /** Active observation tokens at which background reflection starts (0: no reflection buffering). */
  reflectionBufferTokens: number;
  /** Above this many observation tokens a synchronous reflection runs. */
  reflectionBlockAfterTokens: number;
  observer: 'auto' | 'offline' | 'llm';
  observerInstructions: string;
  reflectorInstructions: string;
  workingMemory: WorkingMemorySettings;
  bridge: 'off' | 'messages' | 'observations';
}

export const DEFAULT_WORKING_MEMORY_TEMPLATE = '# Working memory\n\n## Profile\n\n## Preferences\n\n## Goals\n\n## Notes\n';

/**
 * Defaults aim at a context of about 3,000 tokens at most however long the thread (at least 80% fewer tokens than
 * the history once it passes about 15,000): observe every 1,000 message tokens (Lango's threshold; Mastra's 30,000
 * suits models with very long contexts), keep the memory prefix within 1,800 tokens. Raise them for more detail.
 */
export const DEFAULT_THREAD_SETTINGS: Required<Omit<ThreadSettingsInput, 'workingMemory' | 'messageTokenBudget'>> & {
  workingMemory: WorkingMemorySettings;
} = {
  scope: 'thread',
  messageTokens: 1000,
  observationTokens: 1200,
  reflectionConsolidationThreshold: 3,
  maxObservationsInContext: 20,
  maxReflectionsInContext: 6,
  memoryTokenBudget: 1800,
  bufferTokens: 0.25,
  bufferActivation: 0.8,
  blockAfter: 1.2,
  reflectionBufferActivation: 0.5,
  reflectionBlockAfter: 1.2,
  observer: 'auto',
  observerInstructions: '',
  reflectorInstructions: '',
  workingMemory: { enabled: true, scope: 'resource', template: DEFAULT_WORKING_MEMORY_TEMPLATE, autoUpdate: true, maxTokens: 200 },
  bridge: 'off',
};

function issuesText(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix: string): string {
  return issues.map((i) => `${prefix}${i.path.map(String).join('.')}${i.path.length ? ': ' : ''}${i.message}`).join('; ');
}

/** Validates one layer of overrides (bank or thread); `where` names it in the error. */
export function parseThreadSettings(value: unknown, where: string): ThreadSettingsInput {
  if (value === undefined || value === null) return {};
  const parsed = ThreadSettingsSchema.safeParse(value);
  if (!parsed.success) throw badRequest(`invalid thread memory settings (${where}): ${issuesText(parsed.error.issues, '')}`);
  return parsed.data;
}

/** Later layers win; workingMemory merges field by field. */
export function mergeSettings(...layers: ThreadSettingsInput[]): ThreadSettingsInput {
  const out: ThreadSettingsInput = {};
  for (const layer of layers) {
    const { workingMemory, ...rest } = layer;
    Object.assign(out, rest);
    if (workingMemory) out.workingMemory = { ...out.workingMemory, ...workingMemory };
  }
  return out;
}

/** Applies defaults and checks the combination; throws a 400 naming the clash. */
export function resolveSettings(merged: ThreadSettingsInput, where: string): ResolvedThreadSettings {
  const s = { ...DEFAULT_THREAD_SETTINGS, ...merged, workingMemory: { ...DEFAULT_THREAD_SETTINGS.workingMemory, ...merged.workingMemory } };
  const problems: string[] = [];
  const m = s.messageTokens;

  let bufferTokens = 0;
  if (s.bufferTokens !== false && s.bufferTokens > 0) {
    bufferTokens = s.bufferTokens < 1 ? Math.max(1, Math.round(s.bufferTokens * m)) : Math.round(s.bufferTokens);
    if (bufferTokens >= m)
      problems.push(
        `bufferTokens (${s.bufferTokens}, i.e. ${bufferTokens} tokens) must be below messageTokens (${m}): buffering must happen before the threshold; use a fraction such as 0.2 or a smaller count`,
      );
  }

  let keepTokens: number;
  if (s.bufferActivation <= 1) keepTokens = Math.round((1 - s.bufferActivation) * m);
  else {
    keepTokens = Math.round(s.bufferActivation);
    if (keepTokens >= m)
      problems.push(
        `bufferActivation (${s.bufferActivation}) as a token count to keep must be below messageTokens (${m}); use a ratio in (0, 1] or a smaller count`,
      );
  }

  let blockAfterTokens = m;
  if (bufferTokens > 0) {
    blockAfterTokens = s.blockAfter < 2 ? Math.round(s.blockAfter * m) : Math.round(s.blockAfter);
    if (blockAfterTokens <= m)
      problems.push(
        `blockAfter (${s.blockAfter}) must resolve above messageTokens (${m}): use a multiplier between 1 and 2 or a larger token count`,
      );
  } else keepTokens = 0;

  const o = s.observationTokens;
  let reflectionBufferTokens = 0;
  let reflectionBlockAfterTokens = o;
  if (o > 0 && bufferTokens > 0 && s.reflectionBufferActivation !== false && s.reflectionBufferActivation > 0) {
    reflectionBufferTokens = Math.max(1, Math.round(s.reflectionBufferActivation * o));
    reflectionBlockAfterTokens = s.reflectionBlockAfter < 2 ? Math.round(s.reflectionBlockAfter * o) : Math.round(s.reflectionBlockAfter);
    if (reflectionBlockAfterTokens <= o)
      problems.push(
        `reflectionBlockAfter (${s.reflectionBlockAfter}) must resolve above observationTokens (${o}): use a multiplier between 1 and 2 or a larger token count`,
      );
  }

  const messageTokenBudget = s.messageTokenBudget ?? blockAfterTokens;
  if (messageTokenBudget > 0 && messageTokenBudget < m)
    problems.push(
      `messageTokenBudget (${messageTokenBudget}) is below messageTokens (${m}): messages not yet observed would fall out of the context; raise messageTokenBudget (or set 0 for unlimited) or lower messageTokens`,
    );

  if (problems.length) throw badRequest(`invalid thread memory settings (${where}): ${problems.join('; ')}`);
  return {
    scope: s.scope,
    messageTokens: m,
    observationTokens: o,
    reflectionConsolidationThreshold: s.reflectionConsolidationThreshold,
    maxObservationsInContext: s.maxObservationsInContext,
    maxReflectionsInContext: s.maxReflectionsInContext,
    memoryTokenBudget: s.memoryTokenBudget,
    messageTokenBudget,
    bufferTokens,
    bufferActivation: s.bufferActivation,
    blockAfter: s.blockAfter,
    reflectionBufferActivation: s.reflectionBufferActivation,
    reflectionBlockAfter: s.reflectionBlockAfter,
    keepTokens,
    blockAfterTokens,
    reflectionBufferTokens,
    reflectionBlockAfterTokens,
    observer: s.observer,
    observerInstructions: s.observerInstructions,
    reflectorInstructions: s.reflectorInstructions,
    workingMemory: s.workingMemory,
    bridge: s.bridge,
  };
}

/**
 * Values resolution derives, with the settings they come from. The effective settings carry them (so every other
 * key of the effective settings is a setting that can be sent back); sent back they are read-only echoes: accepted
 * when equal to what the other settings derive, refused otherwise.
 */
export const DERIVED_SETTINGS = {
  keepTokens: 'messageTokens and bufferActivation',
  blockAfterTokens: 'messageTokens, bufferTokens and blockAfter',
  reflectionBufferTokens: 'observationTokens, bufferTokens and reflectionBufferActivation',
  reflectionBlockAfterTokens: 'observationTokens, bufferTokens and reflectionBlockAfter',
} as const;

type DerivedKey = keyof typeof DERIVED_SETTINGS;

/** Separates derived keys (read-only echoes) from the settings of a request body. */
export function splitDerived(value: unknown): { layer: unknown; echoes: Array<[DerivedKey, unknown]> } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { layer: value, echoes: [] };
  const layer: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const echoes: Array<[DerivedKey, unknown]> = [];
  for (const key of Object.keys(DERIVED_SETTINGS) as DerivedKey[])
    if (key in layer) {
      echoes.push([key, layer[key]]);
      delete layer[key];
    }
  return { layer, echoes };
}

/** Refuses an echoed derived value that differs from what the settings derive; throws a 400 naming the source. */
export function checkEchoes(echoes: Array<[DerivedKey, unknown]>, resolved: ResolvedThreadSettings, where: string): void {
  const problems = echoes
    .filter(([key, value]) => value !== resolved[key])
    .map(
      ([key, value]) =>
        `${key} is derived from ${DERIVED_SETTINGS[key]} and cannot be set: with these settings it is ${resolved[key]}, not ${JSON.stringify(value)}; leave it out or change those settings`,
    );
  if (problems.length) throw badRequest(`invalid thread memory settings (${where}): ${problems.join('; ')}`);
}
