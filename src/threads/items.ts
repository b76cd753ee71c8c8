// Memory items as the pipeline creates them: observations of a message range and reflections of other items,
// with their token counts, covered ranges or ids, time span and continuity hints.
import { newId } from '../core/index.ts';
import { countTokens } from '../text/index.ts';
import { sumTokens } from './accounting.ts';
import type { ObservationDraft } from './ports.ts';
import type { ThreadScope } from './scope.ts';
import type { MemoryItem, ThreadMessage } from './types.ts';

/** An observation of messages: `running` (no draft yet) while the observer works, then buffered or active. */
export function observationItem(
  scope: ThreadScope,
  messages: ThreadMessage[],
  draft: ObservationDraft | null,
  status: MemoryItem['status'],
  now: string,
): MemoryItem {
  const times = messages.map((m) => m.timestamp).sort();
  return {
    id: newId('obs'),
    bankId: scope.bank.id,
    recordId: scope.recordId,
    threadId: scope.thread.id,
    kind: 'observation',
    generation: 0,
    status,
    text: draft?.text ?? '',
    tokens: draft ? countTokens(draft.text) : 0,
    fromSeq: messages[0].seq,
    toSeq: messages[messages.length - 1].seq,
    messageCount: messages.length,
    inputTokens: sumTokens(messages),
    covers: [],
    currentTask: draft?.currentTask ?? null,
    suggestedResponse: draft?.suggestedResponse ?? null,
    firstAt: times[0] ?? null,
    lastAt: times[times.length - 1] ?? null,
    createdAt: now,
    activatedAt: status === 'active' ? now : null,
    archivedAt: null,
  };
}

/** A reflection condensing `covered`; it carries forward their newest current task and suggested response. */
export function reflectionItem(
  scope: ThreadScope,
  covered: MemoryItem[],
  generation: number,
  text: string | null,
  status: MemoryItem['status'],
  now: string,
): MemoryItem {
  const newestTask = [...covered].reverse().find((c) => c.currentTask);
  const first = covered
    .map((c) => c.firstAt)
    .filter((t): t is string => !!t)
    .sort();
  const last = covered
    .map((c) => c.lastAt)
    .filter((t): t is string => !!t)
    .sort();
  return {
    id: newId('ref'),
    bankId: scope.bank.id,
    recordId: scope.recordId,
    threadId: null,
    kind: 'reflection',
    generation,
    status,
    text: text ?? '',
    tokens: text ? countTokens(text) : 0,
    fromSeq: null,
    toSeq: null,
    messageCount: covered.reduce((n, c) => n + c.messageCount, 0),
    inputTokens: sumTokens(covered),
    covers: covered.map((c) => c.id),
    currentTask: newestTask?.currentTask ?? null,
    suggestedResponse: covered[covered.length - 1]?.suggestedResponse ?? null,
    firstAt: first[0] ?? null,
    lastAt: last[last.length - 1] ?? null,
    createdAt: now,
    activatedAt: status === 'active' ? now : null,
    archivedAt: null,
  };
}
