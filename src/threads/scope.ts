// What every thread-memory step works with: the bank, the thread, its resolved settings, the memory record its
// observations pool into, the working-memory key, and the observer/reflector/updater chosen for the bank.
import type { Bank } from '../core/index.ts';
import type { Observer, Reflector, WorkingMemoryUpdater } from './ports.ts';
import type { ResolvedThreadSettings } from './settings.ts';
import type { Thread } from './types.ts';

export interface Workers {
  observer: Observer;
  reflector: Reflector;
  workingMemory: WorkingMemoryUpdater;
  /** Offline stand-ins used when an LLM worker fails during a synchronous step (null when already offline). */
  fallback: { observer: Observer; reflector: Reflector } | null;
}

export interface ThreadScope {
  bank: Bank;
  thread: Thread;
  settings: ResolvedThreadSettings;
  /** `thread:<id>` or `resource:<id>`. */
  recordId: string;
  /** Working-memory document key. */
  wmKey: string;
  workers: Workers;
}

export const threadKey = (s: ThreadScope): string => `${s.bank.id}\u0000${s.thread.id}`;
export const recordKey = (s: ThreadScope): string => `${s.bank.id}\u0000${s.recordId}`;
