// The status of a thread's memory: active message and observation tokens against their thresholds, buffered
// observation chunks and the buffered reflection with their state (idle, running, complete), what activation
// would remove now, archived counts and the reflection generation count.
import { sumTokens } from './accounting.ts';
import type { ThreadScope } from './scope.ts';
import type { MemoryItem } from './types.ts';

export type BufferState = 'idle' | 'running' | 'complete';

export interface MemoryStatusReport {
  bankId: string;
  threadId: string;
  resourceId: string | null;
  scope: 'thread' | 'resource';
  recordId: string;
  observer: string;
  reflector: string;
  messages: { count: number; tokens: number };
  windows: {
    active: {
      messages: { count: number; tokens: number; threshold: number; blockAfter: number };
      observations: { count: number; tokens: number; threshold: number; blockAfter: number };
      reflections: { count: number; tokens: number; byGeneration: Record<string, number> };
    };
    buffered: {
      observations: {
        chunks: number;
        messageTokens: number;
        projectedMessageRemoval: number;
        observationTokens: number;
        status: BufferState;
        items: Array<{ id: string; status: 'running' | 'complete'; messages: number; messageTokens: number; observationTokens: number }>;
      };
      reflection: { status: BufferState; inputObservationTokens: number; observationTokens: number; generation: number | null };
    };
  };
  archived: { observations: number; reflections: number };
  generationCount: number;
  workingMemory: { key: string; tokens: number } | null;
}

export interface StatusInput {
  scope: ThreadScope;
  items: MemoryItem[];
  unobserved: { count: number; tokens: number };
  allMessages: { count: number; tokens: number };
  workingMemoryTokens: number | null;
}

const state = (items: MemoryItem[]): BufferState =>
  items.some((i) => i.status === 'running') ? 'running' : items.some((i) => i.status === 'buffered') ? 'complete' : 'idle';

export function buildStatus(input: StatusInput): MemoryStatusReport {
  const { scope, items } = input;
  const s = scope.settings;
  const of = (kind: MemoryItem['kind'], status: MemoryItem['status']): MemoryItem[] =>
    items.filter((i) => i.kind === kind && i.status === status);
  const activeObs = of('observation', 'active');
  const activeRefl = of('reflection', 'active');
  const chunks = items
    .filter((i) => i.kind === 'observation' && i.threadId === scope.thread.id && (i.status === 'running' || i.status === 'buffered'))
    .sort((a, b) => (a.fromSeq ?? 0) - (b.fromSeq ?? 0));
  const complete = chunks.filter((c) => c.status === 'buffered');

  // What an activation at this moment would remove, chunk by chunk, down to the share kept raw.
  let remaining = input.unobserved.tokens;
  let projected = 0;
  for (const c of complete) {
    if (remaining <= s.keepTokens) break;
    projected += c.inputTokens;
    remaining -= c.inputTokens;
  }

  const pendingReflection = items.filter((i) => i.kind === 'reflection' && (i.status === 'running' || i.status === 'buffered'));
  const byGeneration: Record<string, number> = {};
  for (const r of activeRefl) byGeneration[String(r.generation)] = (byGeneration[String(r.generation)] ?? 0) + 1;
  const reflections = items.filter((i) => i.kind === 'reflection' && (i.status === 'active' || i.status === 'archived'));

  return {
    bankId: scope.bank.id,
    threadId: scope.thread.id,
    resourceId: scope.thread.resourceId,
    scope: s.scope,
    recordId: scope.recordId,
    observer: scope.workers.observer.name,
    reflector: scope.workers.reflector.name,
    messages: input.allMessages,
    windows: {
      active: {
        messages: {
          count: input.unobserved.count,
          tokens: input.unobserved.tokens,
          threshold: s.messageTokens,
          blockAfter: s.blockAfterTokens,
        },
        observations: {
          count: activeObs.length,
          tokens: sumTokens(activeObs),
          threshold: s.observationTokens,
          blockAfter: s.reflectionBlockAfterTokens,
        },
        reflections: { count: activeRefl.length, tokens: sumTokens(activeRefl), byGeneration },
      },
      buffered: {
        observations: {
          chunks: chunks.length,
          messageTokens: chunks.reduce((n, c) => n + c.inputTokens, 0),
          projectedMessageRemoval: projected,
          observationTokens: sumTokens(complete),
          status: state(chunks),
          items: chunks.map((c) => ({
            id: c.id,
            status: c.status === 'running' ? ('running' as const) : ('complete' as const),
            messages: c.messageCount,
            messageTokens: c.inputTokens,
            observationTokens: c.tokens,
          })),
        },
        reflection: {
          status: state(pendingReflection),
          inputObservationTokens: pendingReflection.reduce((n, r) => n + r.inputTokens, 0),
          observationTokens: sumTokens(pendingReflection),
          generation: pendingReflection[0]?.generation ?? null,
        },
      },
    },
    archived: { observations: of('observation', 'archived').length, reflections: of('reflection', 'archived').length },
    generationCount: reflections.reduce((g, r) => Math.max(g, r.generation), 0),
    workingMemory: input.workingMemoryTokens === null ? null : { key: scope.wmKey, tokens: input.workingMemoryTokens },
  };
}
