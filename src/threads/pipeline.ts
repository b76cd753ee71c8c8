// The observation and reflection pipeline of a thread. `settle` runs after each append, serialized per memory
// record: at the message threshold it activates buffered observations (no model call), keeping the configured
// share of recent messages raw; past blockAfter it waits for the background observer, activates everything
// buffered and observes the rest synchronously; then the same for reflection. `background` runs beside it:
// observation chunks every bufferTokens, reflection once observations reach their buffer point, consolidation
// of reflections into higher generations, working-memory updates and the bridge. Every step commits atomically
// and reserves its range as a `running` item first, so a crash leaves a state that recovery can read.
import { newId, SerialQueue } from '../core/index.ts';
import { log } from '../log.ts';
import { countTokens } from '../text/index.ts';
import { sumTokens } from './accounting.ts';
import { bridgeMessages, bridgeObservations } from './bridge.ts';
import { hasContent } from './context.ts';
import { observationItem, reflectionItem } from './items.ts';
import type { MemoryEvents } from './events.ts';
import type { BridgeRetain, ObservationDraft, Observer, Reflector, ThreadStore } from './ports.ts';
import { recordKey, threadKey, type ThreadScope } from './scope.ts';
import { capDocument, startDocument } from './working-memory.ts';
import type { MemoryEvent, MemoryItem, MemoryOperation, ThreadMessage } from './types.ts';

/** Reflections aim at this share of observationTokens (and never above 70% of what they condense). */
const REFLECTION_SHARE = 0.4;
/** Earlier observations shown to the observer for continuity. */
const OBSERVER_CONTEXT_ITEMS = 3;

export interface PipelineDeps {
  store: ThreadStore;
  events: MemoryEvents;
  bridge?: BridgeRetain;
  now: () => string;
}

type EventFields = Partial<Omit<MemoryEvent, 'id' | 'type' | 'bankId' | 'recordId' | 'at' | 'generationCount'>>;

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A bank deleted and created again under the same id must not inherit the cache: its creation time is part of the key. */
const generationKey = (scope: ThreadScope): string => `${recordKey(scope)}\u0000${scope.bank.createdAt}`;

export function reflectionTarget(observationTokens: number, inputTokens: number): number {
  const share = observationTokens > 0 ? Math.round(observationTokens * REFLECTION_SHARE) : inputTokens;
  return Math.max(32, Math.min(share, Math.round(inputTokens * 0.7)));
}

export class Pipeline {
  readonly queue = new SerialQueue();
  private readonly tasks = new Set<Promise<unknown>>();
  /** The observer call of the chunk being buffered, per thread (awaited by the blocking fallback). */
  private readonly chunkInFlight = new Map<string, Promise<unknown>>();
  /** The reflector call being buffered, per record. */
  private readonly reflectionInFlight = new Map<string, Promise<unknown>>();
  /** Background loops running, so each runs once per thread or record at a time. */
  private readonly loops = new Map<string, Promise<void>>();
  private readonly generations = new Map<string, number>();

  constructor(private readonly deps: PipelineDeps) {}

  /** Resolves when no background work is left. */
  async idle(): Promise<void> {
    while (this.tasks.size) await Promise.allSettled([...this.tasks]);
  }

  private spawn(task: () => Promise<void>): void {
    const p = task().catch((e) => log.warn(`thread memory background step failed: ${errorText(e)}`));
    this.tasks.add(p);
    void p.finally(() => this.tasks.delete(p));
  }

  /** Runs a loop unless the same loop is already running (it re-checks its condition itself). */
  private once(key: string, loop: () => Promise<void>): Promise<void> {
    const running = this.loops.get(key);
    if (running) return running;
    const p = loop().finally(() => this.loops.delete(key));
    this.loops.set(key, p);
    return p;
  }

  // ---- events -------------------------------------------------------------------------------------------

  private async emit(scope: ThreadScope, type: MemoryEvent['type'], fields: EventFields): Promise<MemoryEvent> {
    return this.deps.events.emit({
      type,
      operation: null,
      cycleId: newId('cyc'),
      bankId: scope.bank.id,
      recordId: scope.recordId,
      threadId: scope.thread.id,
      at: this.deps.now(),
      inputTokens: 0,
      outputTokens: null,
      durationMs: null,
      count: 0,
      generation: null,
      chunks: null,
      by: null,
      error: null,
      itemIds: [],
      ...fields,
      generationCount: await this.generationCount(scope),
    });
  }

  /** Highest reflection generation of the record (kept per record once read; raised as reflections activate). */
  async generationCount(scope: ThreadScope): Promise<number> {
    const key = generationKey(scope);
    let count = this.generations.get(key);
    if (count === undefined) {
      const reflections = await this.deps.store.listItems(scope.bank.id, scope.recordId, {
        kinds: ['reflection'],
        statuses: ['active', 'archived'],
      });
      count = reflections.reduce((g, r) => Math.max(g, r.generation), 0);
      this.generations.set(key, count);
    }
    return count;
  }

  private raiseGeneration(scope: ThreadScope, generation: number): void {
    const key = generationKey(scope);
    const current = this.generations.get(key);
    if (current !== undefined && generation > current) this.generations.set(key, generation);
  }

  /** Forgets what is cached about a record (after it was cleared or deleted). */
  forget(scope: ThreadScope): void {
    this.generations.delete(generationKey(scope));
  }

  // ---- reading state ------------------------------------------------------------------------------------

  /** Messages of the thread not covered by an active (or archived) observation. */
  async unobserved(scope: ThreadScope): Promise<{ messages: ThreadMessage[]; tokens: number }> {
    const { observed } = await this.deps.store.watermarks(scope.bank.id, scope.thread.id);
    const messages = await this.deps.store.listMessages(scope.bank.id, scope.thread.id, { afterSeq: observed });
    return { messages, tokens: sumTokens(messages) };
  }

  private async activeObservations(scope: ThreadScope): Promise<MemoryItem[]> {
    return this.deps.store.listItems(scope.bank.id, scope.recordId, { kinds: ['observation'], statuses: ['active'] });
  }

  private async observerContext(scope: ThreadScope): Promise<{ previous: string[]; currentTask: string | null }> {
    const active = await this.deps.store.listItems(scope.bank.id, scope.recordId, { statuses: ['active'] });
    const previous = active
      .filter((i) => i.kind === 'observation' && i.text)
      .slice(-OBSERVER_CONTEXT_ITEMS)
      .map((i) => i.text);
    const withTask = [...active].reverse().find((i) => i.currentTask);
    return { previous, currentTask: withTask?.currentTask ?? null };
  }

  // ---- running the workers --------------------------------------------------------------------------------

  private async observe(scope: ThreadScope, observer: Observer, messages: ThreadMessage[]): Promise<ObservationDraft> {
    const { previous, currentTask } = await this.observerContext(scope);
    return observer.observe({
      bankId: scope.bank.id,
      threadId: scope.thread.id,
      messages,
      previous,
      currentTask,
      instructions: scope.settings.observerInstructions,
    });
  }

  private async reflect(scope: ThreadScope, reflector: Reflector, covered: MemoryItem[], generation: number): Promise<string> {
    const inputTokens = sumTokens(covered);
    const { text } = await reflector.reflect({
      bankId: scope.bank.id,
      recordId: scope.recordId,
      items: covered.map((c) => ({
        id: c.id,
        text: c.text,
        tokens: c.tokens,
        generation: c.generation,
        firstAt: c.firstAt,
        lastAt: c.lastAt,
      })),
      generation,
      targetTokens: reflectionTarget(scope.settings.observationTokens, inputTokens),
      instructions: scope.settings.reflectorInstructions,
    });
    return text;
  }

  /** A synchronous run with start/end/failed events; an LLM failure falls back to the offline worker. */
  private async synchronous<T>(
    scope: ThreadScope,
    operation: MemoryOperation,
    info: { inputTokens: number; count: number; generation: number | null },
    run: (fallback: boolean) => Promise<{ value: T; by: string }>,
  ): Promise<{ value: T; cycleId: string; durationMs: number; by: string }> {
    const canFallBack = scope.workers.fallback !== null;
    for (const fallback of canFallBack ? [false, true] : [false]) {
      const cycleId = newId('cyc');
      const started = Date.now();
      await this.emit(scope, `${operation}.start`, { operation, cycleId, ...info, by: fallback ? 'offline' : null });
      try {
        const { value, by } = await run(fallback);
        return { value, cycleId, durationMs: Date.now() - started, by };
      } catch (e) {
        log.warn(
          `thread ${scope.thread.id}: ${operation} failed${fallback ? '' : canFallBack ? ' (falling back to offline)' : ''}: ${errorText(e)}`,
        );
        await this.emit(scope, `${operation}.failed`, {
          operation,
          cycleId,
          ...info,
          durationMs: Date.now() - started,
          error: errorText(e),
        });
        if (fallback || !canFallBack) throw e;
      }
    }
    throw new Error('unreachable');
  }

  // ---- settle: threshold checks, serialized per record ------------------------------------------------------

  /** Runs the threshold checks of a thread (call inside the record's queue). */
  async settle(scope: ThreadScope): Promise<void> {
    const s = scope.settings;
    let tail = await this.unobserved(scope);
    if (tail.tokens > s.messageTokens) {
      if (s.bufferTokens > 0) await this.activateChunks(scope, tail.tokens, s.keepTokens);
      tail = await this.unobserved(scope);
      if (tail.tokens > s.blockAfterTokens) {
        // Last resort: wait for the chunk being buffered, take everything buffered, observe the rest now.
        await this.chunkInFlight.get(threadKey(scope))?.catch(() => undefined);
        tail = await this.unobserved(scope);
        if (s.bufferTokens > 0) await this.activateChunks(scope, tail.tokens, 0);
        tail = await this.unobserved(scope);
        if (tail.tokens > s.blockAfterTokens) await this.observeNow(scope, s.keepTokens);
      }
    }
    await this.settleReflection(scope);
    if (s.reflectionBufferTokens === 0) await this.consolidateNow(scope);
  }

  /** Activates buffered chunks, oldest first, until at most `keepTokens` unobserved tokens remain. */
  private async activateChunks(scope: ThreadScope, unobservedTokens: number, keepTokens: number): Promise<void> {
    const chunks = (
      await this.deps.store.listItems(scope.bank.id, scope.recordId, {
        kinds: ['observation'],
        statuses: ['buffered'],
        threadId: scope.thread.id,
      })
    ).sort((a, b) => (a.fromSeq ?? 0) - (b.fromSeq ?? 0));
    const chosen: MemoryItem[] = [];
    let remaining = unobservedTokens;
    for (const c of chunks) {
      if (remaining <= keepTokens) break;
      chosen.push(c);
      remaining -= c.inputTokens;
    }
    if (!chosen.length) return;
    const at = this.deps.now();
    await this.deps.store.commit(scope.bank.id, { update: chosen.map((c) => ({ id: c.id, status: 'active' as const, activatedAt: at })) });
    await this.emit(scope, 'activation', {
      operation: 'observation',
      chunks: chosen.length,
      inputTokens: sumTokens(chosen.map((c) => ({ tokens: c.inputTokens }))),
      outputTokens: sumTokens(chosen),
      count: chosen.reduce((n, c) => n + c.messageCount, 0),
      itemIds: chosen.map((c) => c.id),
      durationMs: 0,
    });
    this.afterObservationsActive(scope);
  }

  /** Observes every unbuffered message now, except the newest `keepTokens` worth. */
  private async observeNow(scope: ThreadScope, keepTokens: number): Promise<void> {
    const { buffered } = await this.deps.store.watermarks(scope.bank.id, scope.thread.id);
    const pending = await this.deps.store.listMessages(scope.bank.id, scope.thread.id, { afterSeq: buffered });
    let kept = 0;
    let cut = pending.length;
    while (cut > 0 && kept + pending[cut - 1].tokens <= keepTokens) kept += pending[--cut].tokens;
    const batch = pending.slice(0, cut);
    if (!batch.length) return;
    const { workers } = scope;
    const result = await this.synchronous(
      scope,
      'observation',
      { inputTokens: sumTokens(batch), count: batch.length, generation: null },
      async (fallback) => {
        const observer = fallback && workers.fallback ? workers.fallback.observer : workers.observer;
        return { value: await this.observe(scope, observer, batch), by: observer.name };
      },
    );
    const item = observationItem(scope, batch, result.value, 'active', this.deps.now());
    await this.deps.store.commit(scope.bank.id, { insert: [item] });
    await this.emit(scope, 'observation.end', {
      operation: 'observation',
      cycleId: result.cycleId,
      inputTokens: item.inputTokens,
      outputTokens: item.tokens,
      count: batch.length,
      durationMs: result.durationMs,
      by: result.by,
      itemIds: [item.id],
    });
    this.afterObservationsActive(scope);
  }

  private async settleReflection(scope: ThreadScope): Promise<void> {
    const s = scope.settings;
    if (s.observationTokens === 0) return;
    let tokens = sumTokens(await this.activeObservations(scope));
    if (tokens <= s.observationTokens) return;
    if (s.reflectionBufferTokens > 0) await this.activateReflection(scope);
    tokens = sumTokens(await this.activeObservations(scope));
    if (tokens <= s.reflectionBlockAfterTokens) return;
    await this.reflectionInFlight.get(recordKey(scope))?.catch(() => undefined);
    if (s.reflectionBufferTokens > 0) await this.activateReflection(scope);
    const active = await this.activeObservations(scope);
    if (sumTokens(active) > s.reflectionBlockAfterTokens) await this.reflectNow(scope, active, 1);
  }

  /** Moves a buffered reflection into memory and archives the observations it covers. */
  private async activateReflection(scope: ThreadScope): Promise<void> {
    const [ready] = await this.deps.store.listItems(scope.bank.id, scope.recordId, { kinds: ['reflection'], statuses: ['buffered'] });
    if (!ready) return;
    const at = this.deps.now();
    await this.deps.store.commit(scope.bank.id, {
      update: [
        { id: ready.id, status: 'active', activatedAt: at },
        ...ready.covers.map((id) => ({ id, status: 'archived' as const, archivedAt: at })),
      ],
    });
    this.raiseGeneration(scope, ready.generation);
    await this.emit(scope, 'activation', {
      operation: 'reflection',
      chunks: 1,
      inputTokens: ready.inputTokens,
      outputTokens: ready.tokens,
      count: ready.covers.length,
      generation: ready.generation,
      itemIds: [ready.id],
      durationMs: 0,
    });
  }

  /** Condenses items into a reflection of `generation` now, archiving them. */
  private async reflectNow(scope: ThreadScope, covered: MemoryItem[], generation: number): Promise<void> {
    if (!covered.length) return;
    const { workers } = scope;
    const result = await this.synchronous(
      scope,
      'reflection',
      { inputTokens: sumTokens(covered), count: covered.length, generation },
      async (fallback) => {
        const reflector = fallback && workers.fallback ? workers.fallback.reflector : workers.reflector;
        return { value: await this.reflect(scope, reflector, covered, generation), by: reflector.name };
      },
    );
    const item = reflectionItem(scope, covered, generation, result.value, 'active', this.deps.now());
    const at = this.deps.now();
    await this.deps.store.commit(scope.bank.id, {
      insert: [item],
      update: covered.map((c) => ({ id: c.id, status: 'archived' as const, archivedAt: at })),
    });
    this.raiseGeneration(scope, generation);
    await this.emit(scope, 'reflection.end', {
      operation: 'reflection',
      cycleId: result.cycleId,
      inputTokens: item.inputTokens,
      outputTokens: item.tokens,
      count: covered.length,
      generation,
      durationMs: result.durationMs,
      by: result.by,
      itemIds: [item.id],
    });
  }

  /** Reflections of the lowest generation that has reached the consolidation threshold (none: []). */
  private async dueForConsolidation(scope: ThreadScope): Promise<{ items: MemoryItem[]; generation: number }> {
    const threshold = scope.settings.reflectionConsolidationThreshold;
    if (threshold < 2) return { items: [], generation: 0 };
    const active = await this.deps.store.listItems(scope.bank.id, scope.recordId, { kinds: ['reflection'], statuses: ['active'] });
    const byGeneration = new Map<number, MemoryItem[]>();
    for (const r of active) byGeneration.set(r.generation, [...(byGeneration.get(r.generation) ?? []), r]);
    for (const g of [...byGeneration.keys()].sort((a, b) => a - b)) {
      const items = byGeneration.get(g) ?? [];
      if (items.length >= threshold) return { items, generation: g + 1 };
    }
    return { items: [], generation: 0 };
  }

  private async consolidateNow(scope: ThreadScope): Promise<void> {
    for (;;) {
      const due = await this.dueForConsolidation(scope);
      if (!due.items.length) return;
      await this.reflectNow(scope, due.items, due.generation);
    }
  }

  // ---- background -------------------------------------------------------------------------------------------

  /** Schedules the background work of a thread after new messages. */
  kick(scope: ThreadScope, added: ThreadMessage[]): void {
    const s = scope.settings;
    if (s.bufferTokens > 0) this.spawn(() => this.once(`obs:${threadKey(scope)}`, () => this.bufferObservations(scope)));
    if (s.reflectionBufferTokens > 0) this.spawn(() => this.once(`ref:${recordKey(scope)}`, () => this.bufferReflections(scope)));
    if (s.workingMemory.enabled && s.workingMemory.autoUpdate && added.length) this.spawn(() => this.updateWorkingMemory(scope, added));
    const bridge = this.deps.bridge;
    if (s.bridge === 'messages' && bridge)
      this.spawn(() => this.once(`bridge:${threadKey(scope)}`, () => bridgeMessages(this.deps.store, bridge, scope)));
  }

  private afterObservationsActive(scope: ThreadScope): void {
    const bridge = this.deps.bridge;
    if (scope.settings.bridge === 'observations' && bridge)
      this.spawn(() => this.once(`bridge:${recordKey(scope)}`, () => bridgeObservations(this.deps.store, bridge, scope)));
  }

  private async bufferObservations(scope: ThreadScope): Promise<void> {
    const s = scope.settings;
    const key = threadKey(scope);
    for (;;) {
      const reserved = await this.queue.run(recordKey(scope), async () => {
        const { buffered } = await this.deps.store.watermarks(scope.bank.id, scope.thread.id);
        const pending = await this.deps.store.listMessages(scope.bank.id, scope.thread.id, { afterSeq: buffered });
        if (sumTokens(pending) < s.bufferTokens) return null;
        const batch: ThreadMessage[] = [];
        let tokens = 0;
        for (const m of pending) {
          batch.push(m);
          tokens += m.tokens;
          if (tokens >= s.bufferTokens) break;
        }
        const item = observationItem(scope, batch, null, 'running', this.deps.now());
        await this.deps.store.commit(scope.bank.id, { insert: [item] });
        return { item, batch };
      });
      if (!reserved) return;
      const { item, batch } = reserved;
      const cycleId = newId('cyc');
      const started = Date.now();
      await this.emit(scope, 'buffering.start', {
        operation: 'observation',
        cycleId,
        inputTokens: item.inputTokens,
        count: batch.length,
        itemIds: [item.id],
      });
      const call = this.observe(scope, scope.workers.observer, batch);
      this.chunkInFlight.set(key, call);
      let draft: ObservationDraft;
      try {
        draft = await call;
      } catch (e) {
        await this.deps.store.commit(scope.bank.id, { remove: [item.id] });
        await this.emit(scope, 'buffering.failed', {
          operation: 'observation',
          cycleId,
          inputTokens: item.inputTokens,
          count: batch.length,
          durationMs: Date.now() - started,
          error: errorText(e),
          itemIds: [item.id],
        });
        return;
      } finally {
        if (this.chunkInFlight.get(key) === call) this.chunkInFlight.delete(key);
      }
      const tokens = countTokens(draft.text);
      const { missing } = await this.deps.store.commit(scope.bank.id, {
        update: [
          {
            id: item.id,
            status: 'buffered',
            text: draft.text,
            tokens,
            currentTask: draft.currentTask,
            suggestedResponse: draft.suggestedResponse,
          },
        ],
      });
      if (missing.length) return; // cleared meanwhile
      await this.emit(scope, 'buffering.end', {
        operation: 'observation',
        cycleId,
        inputTokens: item.inputTokens,
        outputTokens: tokens,
        count: batch.length,
        durationMs: Date.now() - started,
        by: scope.workers.observer.name,
        itemIds: [item.id],
      });
      // The threshold may have been crossed while the observer worked.
      await this.queue.run(recordKey(scope), () => this.settle(scope));
    }
  }

  private async bufferReflections(scope: ThreadScope): Promise<void> {
    const s = scope.settings;
    for (;;) {
      const reserved = await this.queue.run(recordKey(scope), async () => {
        const pendingReflections = await this.deps.store.listItems(scope.bank.id, scope.recordId, {
          kinds: ['reflection'],
          statuses: ['running', 'buffered'],
        });
        if (pendingReflections.length) return null;
        const due = await this.dueForConsolidation(scope);
        if (due.items.length) {
          const item = reflectionItem(scope, due.items, due.generation, null, 'running', this.deps.now());
          await this.deps.store.commit(scope.bank.id, { insert: [item] });
          return { item, covered: due.items };
        }
        const active = await this.activeObservations(scope);
        if (sumTokens(active) < s.reflectionBufferTokens) return null;
        const item = reflectionItem(scope, active, 1, null, 'running', this.deps.now());
        await this.deps.store.commit(scope.bank.id, { insert: [item] });
        return { item, covered: active };
      });
      if (!reserved) return;
      const { item, covered } = reserved;
      const consolidation = item.generation > 1;
      const cycleId = newId('cyc');
      const started = Date.now();
      await this.emit(scope, 'buffering.start', {
        operation: 'reflection',
        cycleId,
        inputTokens: item.inputTokens,
        count: covered.length,
        generation: item.generation,
        itemIds: [item.id],
      });
      const call = this.reflect(scope, scope.workers.reflector, covered, item.generation);
      this.reflectionInFlight.set(recordKey(scope), call);
      let text: string;
      try {
        text = await call;
      } catch (e) {
        await this.deps.store.commit(scope.bank.id, { remove: [item.id] });
        await this.emit(scope, 'buffering.failed', {
          operation: 'reflection',
          cycleId,
          inputTokens: item.inputTokens,
          count: covered.length,
          generation: item.generation,
          durationMs: Date.now() - started,
          error: errorText(e),
          itemIds: [item.id],
        });
        return;
      } finally {
        if (this.reflectionInFlight.get(recordKey(scope)) === call) this.reflectionInFlight.delete(recordKey(scope));
      }
      const tokens = countTokens(text);
      const { missing } = await this.deps.store.commit(scope.bank.id, { update: [{ id: item.id, status: 'buffered', text, tokens }] });
      if (missing.length) return;
      await this.emit(scope, 'buffering.end', {
        operation: 'reflection',
        cycleId,
        inputTokens: item.inputTokens,
        outputTokens: tokens,
        count: covered.length,
        generation: item.generation,
        durationMs: Date.now() - started,
        by: scope.workers.reflector.name,
        itemIds: [item.id],
      });
      // A consolidation replaces its reflections as soon as it is ready; a reflection of observations waits for the threshold.
      await this.queue.run(recordKey(scope), async () => {
        if (consolidation) await this.activateReflection(scope);
        await this.settle(scope);
      });
    }
  }

  private async updateWorkingMemory(scope: ThreadScope, added: ThreadMessage[]): Promise<void> {
    const wm = scope.settings.workingMemory;
    await this.queue.run(`wm\u0000${scope.bank.id}\u0000${scope.wmKey}`, async () => {
      const existing = await this.deps.store.getWorkingMemory(scope.bank.id, scope.wmKey);
      const document = startDocument(existing?.content ?? null, wm.template);
      const started = Date.now();
      let next: string;
      try {
        next = capDocument(
          (
            await scope.workers.workingMemory.update({
              bankId: scope.bank.id,
              document,
              template: wm.template,
              messages: added,
              maxTokens: wm.maxTokens,
            })
          ).document,
          wm.maxTokens,
        );
      } catch (e) {
        log.warn(`thread ${scope.thread.id}: working-memory update failed: ${errorText(e)}`);
        return;
      }
      if (next === (existing?.content ?? '') || (!existing && !hasContent(next))) return;
      await this.deps.store.putWorkingMemory({ bankId: scope.bank.id, key: scope.wmKey, content: next, updatedAt: this.deps.now() });
      await this.emit(scope, 'working-memory.updated', {
        outputTokens: countTokens(next),
        durationMs: Date.now() - started,
        by: scope.workers.workingMemory.name,
      });
    });
  }
}
