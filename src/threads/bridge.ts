// The bridge from thread memory to the bank's fact memory: turns a thread's messages (or its observations)
// into retain items, hands them to the injected retain callback, and marks what was handed over so each item
// goes exactly once even across restarts. Tool output and empty observations are not retained.
import type { RetainItem } from '../retain/index.ts';
import type { BridgeRetain, ThreadStore } from './ports.ts';
import type { ThreadScope } from './scope.ts';
import type { MemoryItem, ThreadMessage } from './types.ts';

export const BRIDGE_BATCH = 200;

export function messageToRetainItem(m: ThreadMessage): RetainItem | null {
  if (m.role === 'tool' || !m.content.trim()) return null;
  return {
    content: m.content,
    timestamp: m.timestamp,
    role: m.role,
    speaker: m.name ?? undefined,
    documentId: `thread:${m.threadId}`,
    context: `message in thread ${m.threadId}`,
    metadata: { threadId: m.threadId, messageId: m.id },
  };
}

export function observationToRetainItem(o: MemoryItem): RetainItem | null {
  if (!o.text.trim()) return null;
  return {
    content: o.text,
    timestamp: o.lastAt ?? o.createdAt,
    documentId: `thread-memory:${o.recordId}`,
    // A thread's compressed memory is not a conversation of its own.
    session: null,
    context: `observation of ${o.recordId}`,
    metadata: { observationId: o.id, recordId: o.recordId, ...(o.threadId ? { threadId: o.threadId } : {}) },
  };
}

/** Hands every message of the thread not handed over yet to the retain callback, in order, then marks them. */
export async function bridgeMessages(store: ThreadStore, bridge: BridgeRetain, scope: ThreadScope): Promise<void> {
  for (;;) {
    const pending = await store.unbridgedMessages(scope.bank.id, scope.thread.id, BRIDGE_BATCH);
    if (!pending.length) return;
    const items = pending.map(messageToRetainItem).filter((i) => i !== null);
    if (items.length) await bridge(scope.bank.id, items);
    await store.markBridged(scope.bank.id, { messages: pending.map((m) => m.id) });
  }
}

/** The same for the record's activated observations. */
export async function bridgeObservations(store: ThreadStore, bridge: BridgeRetain, scope: ThreadScope): Promise<void> {
  for (;;) {
    const pending = await store.unbridgedObservations(scope.bank.id, scope.recordId, BRIDGE_BATCH);
    if (!pending.length) return;
    const items = pending.map(observationToRetainItem).filter((i) => i !== null);
    if (items.length) await bridge(scope.bank.id, items);
    await store.markBridged(scope.bank.id, { items: pending.map((o) => o.id) });
  }
}
