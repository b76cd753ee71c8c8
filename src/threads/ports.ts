// Thread memory's ports: the store that keeps threads, messages, memory items and working memory (adapters:
// store/sqlite/threads.ts, store/neo4j/threads.ts), the observer, reflector and working-memory updater (offline and LLM versions in
// this folder), and the bridge callback through which a thread feeds the bank's fact memory.
import type { RetainItem } from '../retain/index.ts';
import type { MemoryItem, MemoryKind, MemoryStatus, NewMessage, Thread, ThreadMessage, WorkingMemory } from './types.ts';

/** One atomic change to a record's memory items. */
export interface MemoryChange {
  insert?: MemoryItem[];
  /** Field changes of existing items, by id. Ids that no longer exist are skipped and reported as missing. */
  update?: Array<{ id: string } & Partial<Omit<MemoryItem, 'id' | 'bankId' | 'recordId'>>>;
  remove?: string[];
}

export interface ItemFilter {
  statuses?: MemoryStatus[];
  kinds?: MemoryKind[];
  threadId?: string;
  /** The first this many only (an existence check reads one, not a thread's whole memory). */
  limit?: number;
}

/** A message with the time it was handed to the bank's fact memory (null: not yet), as export and import carry it. */
export interface StoredMessage extends ThreadMessage {
  bridgedAt: string | null;
}

/** A memory item with the time it was handed to the bank's fact memory (null: not yet). */
export interface StoredItem extends MemoryItem {
  bridgedAt: string | null;
}

/** Highest message seq of a thread covered by its observations: activated ones, and any at all (buffered too). */
export interface Watermarks {
  observed: number;
  buffered: number;
}

export interface ThreadStore {
  getThread(bankId: string, threadId: string): Promise<Thread | null>;
  /** Inserts or replaces the thread row (messages and memory untouched). */
  saveThread(thread: Thread): Promise<void>;
  listThreads(bankId: string, query: { resourceId?: string; limit: number; offset: number }): Promise<Thread[]>;
  /** Removes the thread, its messages, its thread-scoped memory and the observations made from its messages. */
  deleteThread(bankId: string, threadId: string, reason: string): Promise<void>;

  /** Stores messages atomically, in order, and returns them with their seq. */
  appendMessages(bankId: string, threadId: string, messages: NewMessage[]): Promise<ThreadMessage[]>;
  /** Messages in seq order, optionally only those after a seq. */
  listMessages(bankId: string, threadId: string, query?: { afterSeq?: number; limit?: number; offset?: number }): Promise<ThreadMessage[]>;
  countMessages(bankId: string, threadId: string): Promise<{ count: number; tokens: number }>;
  watermarks(bankId: string, threadId: string): Promise<Watermarks>;

  /** Items of a record in creation order. */
  listItems(bankId: string, recordId: string, filter?: ItemFilter): Promise<MemoryItem[]>;
  /** Applies the change atomically. */
  commit(bankId: string, change: MemoryChange): Promise<{ missing: string[] }>;
  /** Deletes items left `running` by a process that died; returns how many. */
  discardRunning(bankId: string, recordId: string): Promise<number>;
  /** Deletes every memory item of the record (and, for thread records, the thread's working memory key is left to the caller). */
  clearRecord(bankId: string, recordId: string): Promise<number>;

  getWorkingMemory(bankId: string, key: string): Promise<WorkingMemory | null>;
  putWorkingMemory(doc: WorkingMemory): Promise<void>;
  deleteWorkingMemory(bankId: string, key: string): Promise<boolean>;

  /** Bridge bookkeeping: what has not been handed to the fact memory yet. */
  unbridgedMessages(bankId: string, threadId: string, limit: number): Promise<ThreadMessage[]>;
  unbridgedObservations(bankId: string, recordId: string, limit: number): Promise<MemoryItem[]>;
  markBridged(bankId: string, ids: { messages?: string[]; items?: string[] }): Promise<void>;

  // export and import of a whole bank
  /** A thread's messages in seq order after a seq, with their bridge state. */
  exportMessages(bankId: string, threadId: string, afterSeq: number, limit: number): Promise<StoredMessage[]>;
  /** The memory items of every record of the bank, in creation order, a page at a time, with their bridge state. */
  exportItems(bankId: string, limit: number, offset: number): Promise<StoredItem[]>;
  /** The bank's working-memory documents, by key. */
  listWorkingMemory(bankId: string): Promise<WorkingMemory[]>;
  /**
   * Stores a thread's messages as exported, in order, atomically: each with its own seq when every one of them is
   * free in the thread (seqsFree) and `renumber` is false; otherwise all with new seqs, in the same order, after the
   * thread's last seq. Returns the seqs stored.
   */
  restoreMessages(bankId: string, threadId: string, messages: StoredMessage[], renumber: boolean): Promise<number[]>;
  /** Stores memory items as exported (bridge state included), in order, atomically. */
  restoreItems(bankId: string, items: StoredItem[]): Promise<void>;
  /** Removes every thread, message, memory item and working-memory document of the bank. */
  deleteBank(bankId: string): Promise<void>;
}

/**
 * Whether restored messages can keep their seqs (ThreadStore.restoreMessages): each a positive integer, none
 * repeated, none already taken in the thread.
 */
export function seqsFree(seqs: number[], taken: (seq: number) => boolean): boolean {
  return seqs.every((seq) => Number.isInteger(seq) && seq > 0 && !taken(seq)) && new Set(seqs).size === seqs.length;
}

export interface CallControl {
  signal?: AbortSignal;
}

export interface ObserveRequest {
  bankId: string;
  threadId: string;
  /** The messages to compress, in order. */
  messages: ThreadMessage[];
  /** Recent observations of the record (oldest first), for continuity. */
  previous: string[];
  /** The current task as last observed. */
  currentTask: string | null;
  /** Bank-specific guidance on what to keep. */
  instructions: string;
}

export interface ObservationDraft {
  /** A few sentences; empty when the messages held nothing worth keeping (they still count as observed). */
  text: string;
  currentTask: string | null;
  suggestedResponse: string | null;
}

/** Compresses a batch of messages into an observation. */
export interface Observer {
  readonly name: string;
  observe(request: ObserveRequest, control?: CallControl): Promise<ObservationDraft>;
}

export interface ReflectSource {
  id: string;
  text: string;
  tokens: number;
  generation: number;
  firstAt: string | null;
  lastAt: string | null;
}

export interface ReflectRequest {
  bankId: string;
  recordId: string;
  /** What to condense, oldest first: later information wins. */
  items: ReflectSource[];
  /** Generation of the reflection being written. */
  generation: number;
  /** Size to aim for. */
  targetTokens: number;
  instructions: string;
}

/** Condenses observations (or reflections) into one reflection. */
export interface Reflector {
  readonly name: string;
  reflect(request: ReflectRequest, control?: CallControl): Promise<{ text: string }>;
}

export interface WorkingMemoryRequest {
  bankId: string;
  document: string;
  template: string;
  /** The turn just added. */
  messages: ThreadMessage[];
  maxTokens: number;
}

/** Keeps the working-memory document current after each turn. */
export interface WorkingMemoryUpdater {
  readonly name: string;
  update(request: WorkingMemoryRequest, control?: CallControl): Promise<{ document: string }>;
}

/**
 * Hands thread content to the bank's fact memory (the composition root passes the engine's retain). Items of one
 * thread share a documentId and arrive in order, so the callee should append them to that document.
 */
export type BridgeRetain = (bankId: string, items: RetainItem[]) => Promise<void>;
