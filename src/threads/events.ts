// The event bus of thread memory: every observation, reflection, buffering and activation step emits start,
// end or failed events with token counts and durations. Subscribers (the SSE route) listen per memory record;
// a bounded history per record lets a client that reconnects resume after the last event id it saw.
import type { MemoryEvent } from './types.ts';

export type EventListener = (event: MemoryEvent) => void;

const key = (bankId: string, recordId: string): string => `${bankId}\u0000${recordId}`;

export class MemoryEvents {
  private nextId = 1;
  private readonly histories = new Map<string, MemoryEvent[]>();
  private readonly listeners = new Map<string, Set<EventListener>>();
  /** Listeners to every record's events (metrics). */
  private readonly taps = new Set<EventListener>();

  /** Keeps the last `historySize` events of each of the `maxRecords` most recently active records. */
  constructor(
    private readonly historySize = 1000,
    private readonly maxRecords = 500,
  ) {}

  emit(event: Omit<MemoryEvent, 'id'>): MemoryEvent {
    const full: MemoryEvent = { id: this.nextId++, ...event };
    const k = key(event.bankId, event.recordId);
    const history = this.histories.get(k) ?? [];
    this.histories.delete(k);
    this.histories.set(k, history);
    if (this.histories.size > this.maxRecords) this.histories.delete(this.histories.keys().next().value as string);
    history.push(full);
    if (history.length > this.historySize) history.splice(0, history.length - this.historySize);
    for (const listener of this.listeners.get(k) ?? []) listener(full);
    for (const tap of this.taps) tap(full);
    return full;
  }

  /** Hears every event of every record; returns the function that stops it. */
  tap(listener: EventListener): () => void {
    this.taps.add(listener);
    return () => this.taps.delete(listener);
  }

  /** Events of a record with an id above `afterId`, oldest first. */
  history(bankId: string, recordId: string, afterId = 0): MemoryEvent[] {
    return (this.histories.get(key(bankId, recordId)) ?? []).filter((e) => e.id > afterId);
  }

  subscribe(bankId: string, recordId: string, listener: EventListener): () => void {
    const k = key(bankId, recordId);
    let set = this.listeners.get(k);
    if (!set) this.listeners.set(k, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(k);
    };
  }

  forget(bankId: string, recordId: string): void {
    this.histories.delete(key(bankId, recordId));
  }
}
