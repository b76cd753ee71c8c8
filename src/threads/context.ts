// Context assembly: the memory prefix (reflections, then the newest observations, then the current task and
// working memory, within the memory budget) and the newest unobserved messages (within the message budget).
// The prefix depends only on memory and budgets, never on the tail or the clock, so it stays byte-identical
// between turns until memory changes; its hash lets a client see when it did.
import { createHash } from 'node:crypto';
import { countTokens } from '../text/index.ts';
import type { ResolvedThreadSettings } from './settings.ts';
import type { MemoryItem, ThreadMessage } from './types.ts';

export const PREFIX_HEADER = 'Memory of this conversation: earlier messages are condensed below; the most recent messages follow verbatim.';

export interface ContextInput {
  /** Active reflections and observations of the record, in creation order. */
  reflections: MemoryItem[];
  observations: MemoryItem[];
  currentTask: string | null;
  suggestedResponse: string | null;
  /** The working-memory document (null or blank: none). */
  workingMemory: string | null;
  /** Unobserved messages of the thread, oldest first. */
  tail: ThreadMessage[];
  settings: ResolvedThreadSettings;
  /** Total token budget of prefix and messages (null: only the configured budgets apply). */
  maxTokens: number | null;
}

export interface AssembledContext {
  prefix: string;
  prefixHash: string;
  prefixTokens: number;
  messages: ThreadMessage[];
  messageTokens: number;
  totalTokens: number;
  /** Unobserved messages left out because they did not fit (the oldest ones). */
  omittedMessages: number;
  reflectionIds: string[];
  observationIds: string[];
  /** Active items left out for the count limits or the budget. */
  omittedReflections: number;
  omittedObservations: number;
  currentTask: string | null;
  workingMemory: boolean;
}

const limit = (n: number): number => (n > 0 ? n : Number.POSITIVE_INFINITY);

export const hashPrefix = (prefix: string): string => createHash('sha256').update(prefix).digest('hex');

/** True when a working-memory document holds more than headings. */
export function hasContent(doc: string | null): doc is string {
  return !!doc && doc.split('\n').some((l) => l.trim() && !/^#{1,6}\s/.test(l.trim()));
}

function render(reflections: MemoryItem[], observations: MemoryItem[], task: string | null, wm: string | null): string {
  const sections: string[] = [];
  if (reflections.length) sections.push(`## Reflections\n${reflections.map((r) => r.text).join('\n\n')}`);
  if (observations.length) sections.push(`## Observations\n${observations.map((o) => o.text).join('\n\n')}`);
  if (task) sections.push(`## Current task\n${task}`);
  if (wm) sections.push(`## Working memory\n${wm.trim()}`);
  return sections.length ? `${PREFIX_HEADER}\n\n${sections.join('\n\n')}\n` : '';
}

const byCoverage = (a: MemoryItem, b: MemoryItem): number => (a.firstAt ?? '').localeCompare(b.firstAt ?? '');

export function assembleContext(input: ContextInput): AssembledContext {
  const { settings } = input;
  const memoryBudget = Math.min(limit(settings.memoryTokenBudget), input.maxTokens ?? Number.POSITIVE_INFINITY);

  const taskText = input.currentTask
    ? input.suggestedResponse
      ? `${input.currentTask}\nSuggested response: ${input.suggestedResponse}`
      : input.currentTask
    : input.suggestedResponse
      ? `Suggested response: ${input.suggestedResponse}`
      : null;
  const wmText = hasContent(input.workingMemory) ? input.workingMemory : null;

  // Fill by priority with per-piece estimates, then check the exact count and shed the last piece taken if needed.
  type Piece = { kind: 'task' | 'wm' | 'reflection' | 'observation'; tokens: number; item?: MemoryItem };
  const pieces: Piece[] = [];
  if (taskText) pieces.push({ kind: 'task', tokens: countTokens(taskText) + 6 });
  if (wmText) pieces.push({ kind: 'wm', tokens: countTokens(wmText) + 6 });
  const order = new Map<string, number>();
  input.reflections.forEach((r, i) => order.set(r.id, i));
  input.observations.forEach((o, i) => order.set(o.id, i));
  const rank = (item: MemoryItem): number => order.get(item.id) ?? 0;
  const reflections = input.reflections
    .filter((r) => r.text.trim())
    .sort((a, b) => b.generation - a.generation || rank(b) - rank(a))
    .slice(0, limit(settings.maxReflectionsInContext));
  const observations = input.observations
    .filter((o) => o.text.trim())
    .reverse()
    .slice(0, limit(settings.maxObservationsInContext));

  const taken: Piece[] = [];
  let used = countTokens(PREFIX_HEADER) + 2;
  const tryTake = (p: Piece): boolean => {
    if (used + p.tokens + 6 > memoryBudget) return false;
    taken.push(p);
    used += p.tokens + 2;
    return true;
  };
  for (const p of pieces) tryTake(p);
  for (const r of reflections) if (!tryTake({ kind: 'reflection', tokens: r.tokens + 2, item: r })) break;
  for (const o of observations) if (!tryTake({ kind: 'observation', tokens: o.tokens + 2, item: o })) break;

  let prefix = '';
  let prefixTokens = 0;
  for (;;) {
    const refl = taken
      .filter((p) => p.kind === 'reflection')
      .map((p) => p.item as MemoryItem)
      .sort((a, b) => byCoverage(a, b) || rank(a) - rank(b));
    const obs = taken
      .filter((p) => p.kind === 'observation')
      .map((p) => p.item as MemoryItem)
      .sort((a, b) => rank(a) - rank(b));
    const task = taken.some((p) => p.kind === 'task') ? taskText : null;
    const wm = taken.some((p) => p.kind === 'wm') ? wmText : null;
    prefix = render(refl, obs, task, wm);
    prefixTokens = countTokens(prefix);
    if (prefixTokens <= memoryBudget || taken.length === 0) break;
    taken.pop();
  }
  if (prefixTokens > memoryBudget) {
    prefix = '';
    prefixTokens = 0;
  }

  const messageBudget = Math.min(limit(settings.messageTokenBudget), (input.maxTokens ?? Number.POSITIVE_INFINITY) - prefixTokens);
  const messages: ThreadMessage[] = [];
  let messageTokens = 0;
  for (let i = input.tail.length - 1; i >= 0; i--) {
    const m = input.tail[i];
    if (messageTokens + m.tokens > messageBudget) break;
    messages.unshift(m);
    messageTokens += m.tokens;
  }

  const reflectionIds = taken.filter((p) => p.kind === 'reflection').map((p) => (p.item as MemoryItem).id);
  const observationIds = taken.filter((p) => p.kind === 'observation').map((p) => (p.item as MemoryItem).id);
  return {
    prefix,
    prefixHash: hashPrefix(prefix),
    prefixTokens,
    messages,
    messageTokens,
    totalTokens: prefixTokens + messageTokens,
    omittedMessages: input.tail.length - messages.length,
    reflectionIds,
    observationIds,
    omittedReflections: input.reflections.filter((r) => r.text.trim()).length - reflectionIds.length,
    omittedObservations: input.observations.filter((o) => o.text.trim()).length - observationIds.length,
    currentTask: taken.some((p) => p.kind === 'task') ? input.currentTask : null,
    workingMemory: taken.some((p) => p.kind === 'wm'),
  };
}
