// ThreadMemory: the use cases of thread memory over its ports. Appending stores messages first (one
// transaction) and only then runs the threshold checks, so no failure or crash in observation can lose a
// message. It also assembles contexts, reports status, manages working memory, per-bank and per-thread
// settings, and clears or deletes threads. The composition root supplies the store, bank lookup, the LLM for a
// bank (or none) and the bridge callback.
import {
  CairnError,
  badRequest,
  notFoundOrDeleted,
  newId,
  nowIso,
  parseTimestamp,
  wellFormed,
  wellFormedValue,
  type Bank,
} from '../core/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import { type AuditReads, type BankStore, requireBankIn } from '../store/index.ts';
import { countTokens } from '../text/index.ts';
import { messageTokenCount, sumTokens } from './accounting.ts';
import { assembleContext, type AssembledContext } from './context.ts';
import { MemoryEvents } from './events.ts';
import { LlmObserver } from './llm-observer.ts';
import { LlmReflector } from './llm-reflector.ts';
import { LlmWorkingMemoryUpdater } from './llm-working-memory.ts';
import { OfflineObserver } from './offline-observer.ts';
import { OfflineReflector } from './offline-reflector.ts';
import { Pipeline } from './pipeline.ts';
import type { BridgeRetain, Observer, Reflector, ThreadStore, WorkingMemoryUpdater } from './ports.ts';
import type { ThreadScope, Workers } from './scope.ts';
import {
  checkEchoes,
  DEFAULT_THREAD_SETTINGS,
  mergeSettings,
  parseThreadSettings,
  resolveSettings,
  splitDerived,
  type ResolvedThreadSettings,
  type ThreadSettingsInput,
} from './settings.ts';
import { buildStatus, type MemoryStatusReport } from './status.ts';
import {
  resourceRecordId,
  threadRecordId,
  type MemoryItem,
  type MemoryStatus,
  type MessageInput,
  type Thread,
  type ThreadMessage,
  type WorkingMemory,
} from './types.ts';
import { addBullet, capDocument, NOTES_SECTION, OfflineWorkingMemoryUpdater, startDocument } from './working-memory.ts';

export interface ThreadMemoryDeps {
  store: ThreadStore;
  /** Bank lookup and update; with tombstoneOf, a deleted bank's or thread's 404 says when it was deleted. */
  banks: BankStore & Partial<Pick<AuditReads, 'tombstoneOf'>>;
  /** The LLM for a bank's thread memory, or null to run offline. */
  llmFor?: (bank: Bank) => LlmProvider | null;
  /** Retains thread content as facts of the bank (enables the `bridge` setting). */
  bridge?: BridgeRetain;
  events?: MemoryEvents;
  /** Offline workers (defaults: OfflineObserver, OfflineReflector, OfflineWorkingMemoryUpdater). */
  offline?: { observer?: Observer; reflector?: Reflector; workingMemory?: WorkingMemoryUpdater };
  now?: () => string;
}

export interface AppendInput {
  messages: MessageInput[];
  resourceId?: string;
}

export interface AppendResult {
  threadId: string;
  resourceId: string | null;
  recordId: string;
  messages: ThreadMessage[];
  /** Problems of the synchronous memory step (the messages are stored regardless). */
  warnings: string[];
}

export interface ThreadContext extends AssembledContext {
  threadId: string;
  recordId: string;
  maxTokens: number | null;
}

export const MAX_MESSAGES_PER_APPEND = 1000;

export class ThreadMemory {
  readonly events: MemoryEvents;
  private readonly pipeline: Pipeline;
  private readonly store: ThreadStore;
  private readonly now: () => string;
  private readonly recovered = new Set<string>();
  private readonly offline: { observer: Observer; reflector: Reflector; workingMemory: WorkingMemoryUpdater };

  constructor(private readonly deps: ThreadMemoryDeps) {
    this.store = deps.store;
    this.events = deps.events ?? new MemoryEvents();
    this.now = deps.now ?? nowIso;
    this.offline = {
      observer: deps.offline?.observer ?? new OfflineObserver(),
      reflector: deps.offline?.reflector ?? new OfflineReflector(),
      workingMemory: deps.offline?.workingMemory ?? new OfflineWorkingMemoryUpdater(),
    };
    this.pipeline = new Pipeline({ store: deps.store, events: this.events, bridge: deps.bridge, now: this.now });
  }

  /** Resolves when no background observation, reflection, working-memory or bridge work is left. */
  idle(): Promise<void> {
    return this.pipeline.idle();
  }

  // ---- settings ----------------------------------------------------------------------------------------------

  /** The 404 of a thread: when it was deleted and why, if it was. */
  private async missingThread(bankId: string, threadId: string): Promise<CairnError> {
    return notFoundOrDeleted('thread', threadId, (await this.deps.banks.tombstoneOf?.(bankId, threadId, ['thread'])) ?? null);
  }

  private requireBank(bankId: string): Promise<Bank> {
    return requireBankIn(this.deps.banks, bankId);
  }

  private bankLayer(bank: Bank): ThreadSettingsInput {
    return parseThreadSettings(bank.config.threads, `bank '${bank.id}' config.threads`);
  }

  private resolve(bank: Bank, threadLayer: ThreadSettingsInput, where: string): ResolvedThreadSettings {
    const settings = resolveSettings(mergeSettings(this.bankLayer(bank), threadLayer), where);
    if (settings.observer === 'llm' && !this.deps.llmFor?.(bank))
      throw badRequest(
        `thread memory setting observer 'llm' (${where}) needs an LLM for threads; configure one (CAIRN_THREADS_LLM_* or CAIRN_LLM_*) or use observer 'auto' or 'offline'`,
      );
    if (settings.bridge !== 'off' && !this.deps.bridge)
      throw badRequest(
        `thread memory setting bridge '${settings.bridge}' (${where}) is not available: this server was started without a retain bridge`,
      );
    return settings;
  }

  /** The bank's thread settings: its own layer and the values in effect. */
  async bankSettings(bankId: string): Promise<{ settings: ThreadSettingsInput; effective: ResolvedThreadSettings }> {
    const bank = await this.requireBank(bankId);
    return { settings: this.bankLayer(bank), effective: this.resolve(bank, {}, `bank '${bankId}'`) };
  }

  /** Merges (or, with replace, sets) the bank's thread settings after checking the result. */
  async updateBankSettings(
    bankId: string,
    patch: unknown,
    replace = false,
  ): Promise<{ settings: ThreadSettingsInput; effective: ResolvedThreadSettings }> {
    const bank = await this.requireBank(bankId);
    // The effective settings GET returns can be sent back: their derived values are checked, not stored.
    const { layer: settable, echoes } = splitDerived(patch);
    const layer = parseThreadSettings(settable, `bank '${bankId}' update`);
    const next = replace ? layer : mergeSettings(this.bankLayer(bank), layer);
    const updated: Bank = { ...bank, config: { ...bank.config, threads: next }, updatedAt: this.now() };
    const effective = this.resolve(updated, {}, `bank '${bankId}'`);
    checkEchoes(echoes, effective, `bank '${bankId}' update`);
    await this.deps.banks.updateBank(updated);
    return { settings: next, effective };
  }

  // ---- scopes ------------------------------------------------------------------------------------------------

  private workersFor(bank: Bank, settings: ResolvedThreadSettings): Workers {
    const llm = settings.observer === 'offline' ? null : (this.deps.llmFor?.(bank) ?? null);
    if (!llm) return { ...this.offline, fallback: null };
    return {
      observer: new LlmObserver(llm),
      reflector: new LlmReflector(llm),
      workingMemory: new LlmWorkingMemoryUpdater(llm),
      fallback: { observer: this.offline.observer, reflector: this.offline.reflector },
    };
  }

  /**
   * A thread's scope. The settings say where a thread's observations go, but a thread's memory stays where it is:
   * once observations of the thread exist in a record (its own or its resource's), the thread keeps using that
   * record whatever the settings say later, so a change of `scope` never hides memory or observed messages (it
   * applies to threads without memory yet; clearing a thread's memory lets it follow the settings). A thread with
   * messages but no resourceId cannot get one, so under scope 'resource' it keeps its own record; only a thread
   * without messages is asked for a resourceId.
   */
  private async scopeOf(bank: Bank, thread: Thread, lenient = false): Promise<ThreadScope> {
    const configured = this.resolve(bank, parseThreadSettings(thread.settings, `thread '${thread.id}' settings`), `thread '${thread.id}'`);
    const place = await this.placement(bank.id, thread, configured.scope, lenient);
    const settings = place === configured.scope ? configured : { ...configured, scope: place };
    const recordId = place === 'resource' && thread.resourceId ? resourceRecordId(thread.resourceId) : threadRecordId(thread.id);
    const wmKey =
      settings.workingMemory.scope === 'resource' && thread.resourceId ? resourceRecordId(thread.resourceId) : threadRecordId(thread.id);
    return { bank, thread, settings, recordId, wmKey, workers: this.workersFor(bank, settings) };
  }

  /** The record a thread's settings would put its observations in (null: scope 'resource' without a resourceId). */
  private configuredRecord(thread: Thread, scope: 'thread' | 'resource'): string | null {
    if (scope === 'thread') return threadRecordId(thread.id);
    return thread.resourceId ? resourceRecordId(thread.resourceId) : null;
  }

  /**
   * Where the thread's observations are: the record already holding some, else where the settings say (see
   * scopeOf). Lenient: a thread without messages that needs a resourceId is placed in its own record, not refused.
   */
  private async placement(
    bankId: string,
    thread: Thread,
    configured: 'thread' | 'resource',
    lenient: boolean,
  ): Promise<'thread' | 'resource'> {
    if ((await this.store.watermarks(bankId, thread.id)).buffered > 0) {
      const other = configured === 'thread' ? 'resource' : 'thread';
      for (const scope of [configured, other] as const) {
        const record = this.configuredRecord(thread, scope);
        if (record && (await this.store.listItems(bankId, record, { threadId: thread.id, kinds: ['observation'], limit: 1 })).length)
          return scope;
      }
    }
    if (configured === 'resource' && !thread.resourceId) {
      if (lenient || (await this.store.countMessages(bankId, thread.id)).count > 0) return 'thread';
      throw badRequest(
        `thread '${thread.id}' uses scope 'resource' but has no resourceId; send resourceId with the thread's first messages`,
      );
    }
    return configured;
  }

  /** Loads a thread's scope; discards work a dead process left running the first time a record is touched. */
  private async scope(bankId: string, threadId: string, lenient = false): Promise<ThreadScope> {
    const bank = await this.requireBank(bankId);
    const thread = await this.store.getThread(bankId, threadId);
    if (!thread) throw await this.missingThread(bankId, threadId);
    const scope = await this.scopeOf(bank, thread, lenient);
    await this.recover(scope);
    return scope;
  }

  private async recover(scope: ThreadScope): Promise<void> {
    const key = `${scope.bank.id}\u0000${scope.recordId}`;
    if (this.recovered.has(key)) return;
    this.recovered.add(key);
    await this.pipeline.queue.run(key, () => this.store.discardRunning(scope.bank.id, scope.recordId));
  }

  // ---- threads -----------------------------------------------------------------------------------------------

  async getThread(bankId: string, threadId: string): Promise<Thread> {
    await this.requireBank(bankId);
    const thread = await this.store.getThread(bankId, threadId);
    if (!thread) throw await this.missingThread(bankId, threadId);
    return thread;
  }

  async listThreads(bankId: string, query: { resourceId?: string; limit: number; offset: number }): Promise<Thread[]> {
    await this.requireBank(bankId);
    return this.store.listThreads(bankId, query);
  }

  /** Creates or updates a thread: its resourceId (only while it has no messages) and its setting overrides. */
  async putThread(bankId: string, threadId: string, input: { resourceId?: string | null; settings?: unknown }): Promise<Thread> {
    const bank = await this.requireBank(bankId);
    const existing = await this.store.getThread(bankId, threadId);
    const now = this.now();
    const thread: Thread = existing ?? { bankId, id: threadId, resourceId: null, settings: {}, createdAt: now, updatedAt: now };
    const next: Thread = { ...thread, updatedAt: now };
    if (input.resourceId !== undefined && input.resourceId !== thread.resourceId) {
      if (existing && (await this.store.countMessages(bankId, threadId)).count > 0)
        throw new CairnError(
          'conflict',
          `thread '${threadId}' already has messages under resource '${thread.resourceId ?? '(none)'}'; its resourceId cannot change`,
        );
      next.resourceId = input.resourceId;
    }
    if (input.settings !== undefined) {
      const layer = parseThreadSettings(input.settings, `thread '${threadId}' settings`);
      next.settings = layer as Record<string, unknown>;
      if (layer.scope === 'resource' && !next.resourceId)
        throw badRequest(
          `thread '${threadId}' has no resourceId, so its scope cannot be 'resource'; set resourceId before its first message`,
        );
      // A thread keeps the record that holds its memory (scopeOf); an override that names or changes its scope,
      // away from that record, is refused rather than silently ignored. The old override is read leniently: one
      // that no longer resolves is what this request may be fixing.
      if (existing) {
        let old: ThreadSettingsInput = {};
        try {
          old = parseThreadSettings(thread.settings, `thread '${threadId}' settings`);
        } catch {}
        const scopeSet = (l: ThreadSettingsInput) => mergeSettings(this.bankLayer(bank), l).scope ?? DEFAULT_THREAD_SETTINGS.scope;
        const after = this.configuredRecord(next, scopeSet(layer));
        const place = await this.placement(bankId, thread, scopeSet(old), true);
        const holding = this.configuredRecord(thread, place);
        const asks = layer.scope !== undefined || after !== this.configuredRecord(thread, scopeSet(old));
        if (asks && holding && after !== holding && (await this.store.listItems(bankId, holding, { threadId, limit: 1 })).length)
          throw new CairnError(
            'conflict',
            `thread '${threadId}' already has memory in ${holding}; clear it (DELETE /v1/banks/${bankId}/threads/${threadId}/memory) before changing its scope`,
          );
      }
    }
    await this.scopeOf(bank, next);
    await this.store.saveThread(next);
    return next;
  }

  /** Deletes the thread with its messages and memory; its tombstone keeps when and why (never the content). */
  async deleteThread(bankId: string, threadId: string, reason: string): Promise<void> {
    const scope = await this.scope(bankId, threadId, true);
    await this.pipeline.queue.run(`${bankId}\u0000${scope.recordId}`, () => this.store.deleteThread(bankId, threadId, reason));
    this.pipeline.forget(scope);
  }

  // ---- messages ----------------------------------------------------------------------------------------------

  /** Stores the messages (before anything else), then runs the synchronous memory step and schedules the rest. */
  async append(bankId: string, threadId: string, input: AppendInput): Promise<AppendResult> {
    if (!input.messages.length) throw badRequest('messages must hold at least one message');
    if (input.messages.length > MAX_MESSAGES_PER_APPEND)
      throw badRequest(`at most ${MAX_MESSAGES_PER_APPEND} messages per request; send the rest in further requests`);
    const bank = await this.requireBank(bankId);
    let thread = await this.store.getThread(bankId, threadId);
    if (!thread || (input.resourceId !== undefined && input.resourceId !== thread.resourceId))
      thread = await this.putThread(bankId, threadId, { resourceId: input.resourceId });
    const scope = await this.scopeOf(bank, thread);
    await this.recover(scope);

    const received = this.now();
    const rows = input.messages.map((m, i) => ({
      id: newId('msg'),
      bankId,
      threadId,
      role: m.role,
      name: m.name === undefined ? null : wellFormed(m.name),
      content: wellFormed(m.content),
      // Tool calls are free text like content: a lone surrogate anywhere in them becomes U+FFFD (see wellFormed).
      toolCalls: m.toolCalls?.length ? (wellFormedValue(m.toolCalls) as typeof m.toolCalls) : null,
      timestamp: m.timestamp ? parseTimestamp(m.timestamp, `messages.${i}.timestamp`) : received,
      tokens: messageTokenCount(m),
      createdAt: received,
    }));
    const saved = await this.store.appendMessages(bankId, threadId, rows);

    const warnings: string[] = [];
    try {
      await this.pipeline.queue.run(`${bankId}\u0000${scope.recordId}`, () => this.pipeline.settle(scope));
    } catch (e) {
      warnings.push(`memory step failed, messages are stored and will be observed later: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.pipeline.kick(scope, saved);
    return { threadId, resourceId: thread.resourceId, recordId: scope.recordId, messages: saved, warnings };
  }

  async listMessages(bankId: string, threadId: string, query: { limit: number; offset: number }): Promise<ThreadMessage[]> {
    await this.getThread(bankId, threadId);
    return this.store.listMessages(bankId, threadId, query);
  }

  // ---- reading memory ----------------------------------------------------------------------------------------

  async context(bankId: string, threadId: string, options: { maxTokens?: number } = {}): Promise<ThreadContext> {
    const scope = await this.scope(bankId, threadId);
    const active = await this.store.listItems(bankId, scope.recordId, { statuses: ['active'] });
    const hints = [...active].reverse();
    const own = hints.filter((i) => i.threadId === threadId || i.kind === 'reflection');
    const withTask = own.find((i) => i.currentTask);
    const latest = own.find((i) => i.kind === 'observation') ?? own[0];
    const wm = scope.settings.workingMemory.enabled ? await this.store.getWorkingMemory(bankId, scope.wmKey) : null;
    const { messages: tail } = await this.pipeline.unobserved(scope);
    const assembled = assembleContext({
      reflections: active.filter((i) => i.kind === 'reflection'),
      observations: active.filter((i) => i.kind === 'observation'),
      currentTask: withTask?.currentTask ?? null,
      suggestedResponse: latest?.suggestedResponse ?? null,
      workingMemory: wm?.content ?? null,
      tail,
      settings: scope.settings,
      maxTokens: options.maxTokens ?? null,
    });
    return { ...assembled, threadId, recordId: scope.recordId, maxTokens: options.maxTokens ?? null };
  }

  async status(bankId: string, threadId: string): Promise<MemoryStatusReport> {
    const scope = await this.scope(bankId, threadId);
    const items = await this.store.listItems(bankId, scope.recordId);
    const { messages } = await this.pipeline.unobserved(scope);
    const wm = scope.settings.workingMemory.enabled ? await this.store.getWorkingMemory(bankId, scope.wmKey) : null;
    return buildStatus({
      scope,
      items,
      unobserved: { count: messages.length, tokens: sumTokens(messages) },
      allMessages: await this.store.countMessages(bankId, threadId),
      workingMemoryTokens: wm ? countTokens(wm.content) : null,
    });
  }

  async items(bankId: string, threadId: string, statuses?: MemoryStatus[]): Promise<MemoryItem[]> {
    const scope = await this.scope(bankId, threadId);
    return this.store.listItems(bankId, scope.recordId, statuses?.length ? { statuses } : {});
  }

  /** The record a thread's events are published under (for subscriptions). */
  async recordOf(bankId: string, threadId: string): Promise<string> {
    return (await this.scope(bankId, threadId)).recordId;
  }

  /** Removes the memory of a thread's record (observations, reflections, buffered work, working memory); messages stay and will be observed again. */
  async clear(bankId: string, threadId: string): Promise<{ recordId: string; items: number; workingMemory: boolean }> {
    const scope = await this.scope(bankId, threadId);
    return this.pipeline.queue.run(`${bankId}\u0000${scope.recordId}`, async () => {
      const items = await this.store.clearRecord(bankId, scope.recordId);
      const workingMemory = await this.store.deleteWorkingMemory(bankId, scope.wmKey);
      this.pipeline.forget(scope);
      return { recordId: scope.recordId, items, workingMemory };
    });
  }

  // ---- working memory ----------------------------------------------------------------------------------------

  async workingMemory(bankId: string, threadId: string): Promise<WorkingMemory> {
    const scope = await this.scope(bankId, threadId);
    const doc = await this.store.getWorkingMemory(bankId, scope.wmKey);
    return doc ?? { bankId, key: scope.wmKey, content: scope.settings.workingMemory.template, updatedAt: scope.thread.createdAt };
  }

  async putWorkingMemory(bankId: string, threadId: string, content: string): Promise<WorkingMemory> {
    const scope = await this.scope(bankId, threadId);
    return this.writeWorkingMemory(scope, () => capDocument(wellFormed(content), scope.settings.workingMemory.maxTokens));
  }

  /** Appends a note under the Notes section of the working-memory document. */
  async remember(bankId: string, threadId: string, note: string): Promise<WorkingMemory> {
    const scope = await this.scope(bankId, threadId);
    if (!scope.settings.workingMemory.enabled)
      throw badRequest(`working memory is disabled for thread '${threadId}' (setting workingMemory.enabled)`);
    return this.writeWorkingMemory(scope, (current) =>
      capDocument(addBullet(current, NOTES_SECTION, wellFormed(note), 'exact'), scope.settings.workingMemory.maxTokens),
    );
  }

  private async writeWorkingMemory(scope: ThreadScope, change: (current: string) => string): Promise<WorkingMemory> {
    const { bank } = scope;
    return this.pipeline.queue.run(`wm\u0000${bank.id}\u0000${scope.wmKey}`, async () => {
      const existing = await this.store.getWorkingMemory(bank.id, scope.wmKey);
      const doc: WorkingMemory = {
        bankId: bank.id,
        key: scope.wmKey,
        content: change(startDocument(existing?.content ?? null, scope.settings.workingMemory.template)),
        updatedAt: this.now(),
      };
      await this.store.putWorkingMemory(doc);
      this.events.emit({
        type: 'working-memory.updated',
        operation: null,
        cycleId: newId('cyc'),
        bankId: bank.id,
        recordId: scope.recordId,
        threadId: scope.thread.id,
        at: doc.updatedAt,
        inputTokens: 0,
        outputTokens: countTokens(doc.content),
        durationMs: 0,
        count: 0,
        generation: null,
        generationCount: await this.pipeline.generationCount(scope),
        chunks: null,
        by: 'api',
        error: null,
        itemIds: [],
      });
      return doc;
    });
  }
}
