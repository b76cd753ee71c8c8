// Thread memory's domain types: threads and their messages, memory items (observations and reflections, with
// the message range or items they cover), working-memory documents and the events a thread's memory emits.

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';
export const MESSAGE_ROLES: readonly MessageRole[] = ['user', 'assistant', 'system', 'tool'];

/** A tool call an assistant message made. Its output, if any, arrives as a later `tool` message. */
export interface ToolCall {
  id?: string;
  name: string;
  arguments?: unknown;
}

/** A message as a client sends it. */
export interface MessageInput {
  role: MessageRole;
  content: string;
  /** Who said it, when the role is not enough (e.g. a participant's name). */
  name?: string;
  /** When it was said (ISO 8601); defaults to the time it was received. */
  timestamp?: string;
  toolCalls?: ToolCall[];
}

/** A stored message. `seq` numbers a thread's messages in order (1, 2, 3 ... per thread); `tokens` is its cost in a prompt. */
export interface ThreadMessage {
  seq: number;
  id: string;
  bankId: string;
  threadId: string;
  role: MessageRole;
  name: string | null;
  content: string;
  toolCalls: ToolCall[] | null;
  timestamp: string;
  tokens: number;
  createdAt: string;
}

/** A message ready to be stored (the store assigns `seq`). */
export type NewMessage = Omit<ThreadMessage, 'seq'>;

/** Where observations are pooled: per thread, or across every thread of one resource (e.g. one user). */
export type MemoryScope = 'thread' | 'resource';

export interface Thread {
  bankId: string;
  id: string;
  resourceId: string | null;
  /** Per-thread setting overrides (validated, partial). */
  settings: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export type MemoryKind = 'observation' | 'reflection';

/**
 * running: reserved, the observer or reflector is working on it (a crash leaves it here; it is discarded on
 * recovery); buffered: computed in the background, waiting for activation; active: part of the memory;
 * archived: condensed into a reflection, kept for audit but no longer in context.
 */
export type MemoryStatus = 'running' | 'buffered' | 'active' | 'archived';

export interface MemoryItem {
  id: string;
  bankId: string;
  /** The memory record the item belongs to: `thread:<id>` or `resource:<id>`. */
  recordId: string;
  /** Thread whose messages an observation covers (null for reflections). */
  threadId: string | null;
  kind: MemoryKind;
  /** 0 for observations; 1 for reflections of observations; n+1 for reflections of generation-n reflections. */
  generation: number;
  status: MemoryStatus;
  text: string;
  tokens: number;
  /** Message range an observation covers (inclusive seq bounds). */
  fromSeq: number | null;
  toSeq: number | null;
  messageCount: number;
  /** Tokens of what the item condensed: covered messages (observations) or covered items (reflections). */
  inputTokens: number;
  /** Ids of the items a reflection condensed. */
  covers: string[];
  currentTask: string | null;
  suggestedResponse: string | null;
  /** Time span of the content (earliest and latest message timestamps). */
  firstAt: string | null;
  lastAt: string | null;
  createdAt: string;
  activatedAt: string | null;
  archivedAt: string | null;
}

export interface WorkingMemory {
  bankId: string;
  /** `thread:<id>` or `resource:<id>`. */
  key: string;
  content: string;
  updatedAt: string;
}

export const threadRecordId = (threadId: string): string => `thread:${threadId}`;
export const resourceRecordId = (resourceId: string): string => `resource:${resourceId}`;

export type MemoryOperation = 'observation' | 'reflection';

/**
 * observation.* and reflection.*: a synchronous (blocking) run; buffering.*: a background run, whose
 * `operation` says which; activation: buffered work moved into memory (no model call);
 * working-memory.updated: the working-memory document changed.
 */
export type MemoryEventType =
  | 'observation.start'
  | 'observation.end'
  | 'observation.failed'
  | 'reflection.start'
  | 'reflection.end'
  | 'reflection.failed'
  | 'buffering.start'
  | 'buffering.end'
  | 'buffering.failed'
  | 'activation'
  | 'working-memory.updated';

export interface MemoryEvent {
  /** Increasing per process; SSE clients resume with it (Last-Event-ID). */
  id: number;
  type: MemoryEventType;
  operation: MemoryOperation | null;
  /** Shared by the start and end/failed events of one run. */
  cycleId: string;
  bankId: string;
  recordId: string;
  threadId: string | null;
  at: string;
  /** Tokens going in: messages for observations, observations or reflections for reflections. */
  inputTokens: number;
  /** Tokens coming out (end and activation events). */
  outputTokens: number | null;
  durationMs: number | null;
  /** Messages covered (observations) or items condensed (reflections). */
  count: number;
  /** Generation of the reflection produced (reflection events). */
  generation: number | null;
  /** Highest reflection generation of the record after the event. */
  generationCount: number;
  /** Buffered chunks moved into memory (activation). */
  chunks: number | null;
  /** Which implementation ran ('offline', 'llm:<provider>/<model>'). */
  by: string | null;
  error: string | null;
  itemIds: string[];
}
