// Thread memory and usage ledger records <-> Neo4j node properties. Maps (thread settings, tool calls) are stored
// as JSON text; a null field is no property at all (compacted on create, removed by `SET n += {field: null}`);
// counters and sequence numbers travel as integers, so the range indexes over them hold one type.
import type { UsageEntry } from '../../llm/index.ts';
import type {
  StoredItem,
  StoredMessage,
  MemoryItem,
  MemoryKind,
  MemoryStatus,
  MessageRole,
  NewMessage,
  Thread,
  ThreadMessage,
  ToolCall,
  WorkingMemory,
} from '../../threads/index.ts';
import { compact } from './props.ts';
import type { Props } from './rows.ts';
import { int, type Params } from './statement.ts';

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const intOrNull = (n: number | null): unknown => (n === null ? null : int(n));

export function toThread(p: Props): Thread {
  return {
    bankId: String(p.bankId),
    id: String(p.id),
    resourceId: str(p.resourceId),
    settings: JSON.parse(String(p.settings ?? '{}')) as Record<string, unknown>,
    createdAt: String(p.createdAt),
    updatedAt: String(p.updatedAt),
  };
}

export function messageProps(m: NewMessage & { seq: number; bridgedAt?: string | null }): Params {
  return compact({
    seq: int(m.seq),
    id: m.id,
    bankId: m.bankId,
    threadId: m.threadId,
    role: m.role,
    name: m.name,
    content: m.content,
    toolCalls: m.toolCalls ? JSON.stringify(m.toolCalls) : null,
    timestamp: m.timestamp,
    tokens: int(m.tokens),
    createdAt: m.createdAt,
    bridgedAt: m.bridgedAt ?? null,
  });
}

export function toMessage(p: Props): ThreadMessage {
  return {
    seq: Number(p.seq),
    id: String(p.id),
    bankId: String(p.bankId),
    threadId: String(p.threadId),
    role: String(p.role) as MessageRole,
    name: str(p.name),
    content: String(p.content),
    toolCalls: p.toolCalls ? (JSON.parse(String(p.toolCalls)) as ToolCall[]) : null,
    timestamp: String(p.timestamp),
    tokens: Number(p.tokens),
    createdAt: String(p.createdAt),
  };
}

export const toStoredMessage = (p: Props): StoredMessage => ({ ...toMessage(p), bridgedAt: str(p.bridgedAt) });

/** The stored form of each item field a commit may change (integers as integers, null as null: removed). */
const ITEM_FIELDS: { [K in keyof MemoryItem]: (v: MemoryItem[K]) => unknown } = {
  id: (v) => v,
  bankId: (v) => v,
  recordId: (v) => v,
  threadId: (v) => v,
  kind: (v) => v,
  generation: (v) => int(v),
  status: (v) => v,
  text: (v) => v,
  tokens: (v) => int(v),
  fromSeq: intOrNull,
  toSeq: intOrNull,
  messageCount: (v) => int(v),
  inputTokens: (v) => int(v),
  covers: (v) => v ?? [],
  currentTask: (v) => v,
  suggestedResponse: (v) => v,
  firstAt: (v) => v,
  lastAt: (v) => v,
  createdAt: (v) => v,
  activatedAt: (v) => v,
  archivedAt: (v) => v,
};

/** Fields a commit's update may not change: they say which item it is and where it belongs. */
const FIXED = new Set<string>(['id', 'bankId', 'recordId']);

/** An item's properties, with its place in the bank's creation order. */
export function itemProps(item: MemoryItem, rid: number, bridgedAt: string | null): Params {
  const out: Params = { rid: int(rid), bridgedAt };
  for (const [field, store] of Object.entries(ITEM_FIELDS) as Array<[keyof MemoryItem, (v: unknown) => unknown]>)
    out[field] = store(item[field] ?? null);
  return compact(out);
}

/** The properties an update changes, or null when it names no field it may change (the embedded store skips those too). */
export function itemPatch(patch: Record<string, unknown>): Params | null {
  const out: Params = {};
  for (const [field, value] of Object.entries(patch)) {
    if (FIXED.has(field) || !(field in ITEM_FIELDS)) continue;
    out[field] = (ITEM_FIELDS[field as keyof MemoryItem] as (v: unknown) => unknown)(value ?? null) ?? null;
  }
  return Object.keys(out).length ? out : null;
}

export function toItem(p: Props): MemoryItem {
  return {
    id: String(p.id),
    bankId: String(p.bankId),
    recordId: String(p.recordId),
    threadId: str(p.threadId),
    kind: String(p.kind) as MemoryKind,
    generation: Number(p.generation),
    status: String(p.status) as MemoryStatus,
    text: String(p.text),
    tokens: Number(p.tokens),
    fromSeq: num(p.fromSeq),
    toSeq: num(p.toSeq),
    messageCount: Number(p.messageCount ?? 0),
    inputTokens: Number(p.inputTokens ?? 0),
    covers: Array.isArray(p.covers) ? p.covers.map(String) : [],
    currentTask: str(p.currentTask),
    suggestedResponse: str(p.suggestedResponse),
    firstAt: str(p.firstAt),
    lastAt: str(p.lastAt),
    createdAt: String(p.createdAt),
    activatedAt: str(p.activatedAt),
    archivedAt: str(p.archivedAt),
  };
}

export const toStoredItem = (p: Props): StoredItem => ({ ...toItem(p), bridgedAt: str(p.bridgedAt) });

export const toWorkingMemory = (p: Props): WorkingMemory => ({
  bankId: String(p.bankId),
  key: String(p.key),
  content: String(p.content),
  updatedAt: String(p.updatedAt),
});

/** A ledger entry as stored: its time canonical, latency in whole milliseconds, counts as integers. */
export function usageProps(e: UsageEntry, at: string): Params {
  return compact({
    at,
    bankId: e.bankId,
    operation: e.operation,
    provider: e.provider,
    model: e.model,
    inputTokens: int(e.inputTokens),
    outputTokens: int(e.outputTokens),
    cachedTokens: int(e.cachedTokens),
    latencyMs: int(Math.round(e.latencyMs)),
    costUsd: e.costUsd,
    ok: e.ok,
    error: e.error,
  });
}
