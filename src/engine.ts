// The engine: Cairn's use cases over the ports, the one door the HTTP API, the CLI and the worker entry go through.
// Banks, retain, recall and operations are its own methods; the other modules' use cases are its facades
// (memories, audit, reflect), each given only the store roles it needs. It never knows which adapters it was given,
// and nothing outside it (and the composition root) holds the store.
import {
  Activity,
  bankDeletedError,
  CairnError,
  notFound,
  quoteId,
  isUnfinished,
  withoutNulls,
  newId,
  payloadHash,
  nowIso,
  wellFormed,
  type Bank,
  type BankConfig,
  type Operation,
  Events,
} from './core/index.ts';
import { Audit } from './audit/index.ts';
import type { Embedder, Reranker } from './embed/index.ts';
import { log } from './log.ts';
import { traced } from './telemetry/index.ts';
import { Memories } from './memories.ts';
import { Operations } from './operations.ts';
import { recall, type RecallRequest, type RecallResponse, type RecallSettings, type RecallTimings } from './recall/index.ts';
import {
  BankWriteLeases,
  DocumentsInFlight,
  type Extractor,
  type Progress,
  type RetainRequest,
  type RetainResult,
  retain,
} from './retain/index.ts';
import { Reflection } from './reflect/index.ts';
import { type DeleteResult, type KeyedOperation, type MemoryStore, type OperationListQuery, requireBankIn } from './store/index.ts';

export interface EngineDeps {
  store: MemoryStore;
  embedder: Embedder;
  reranker: Reranker | null;
  extractor: Extractor;
  /** Overrides of recall's tunables (fusion, shares, caps), for evaluation and tuning. */
  recallSettings?: Partial<RecallSettings>;
  /** Counts running recalls and retains, for background work that steps aside meanwhile (consolidate/thread.ts). */
  activity?: Activity;
  /** How long a bank's delete is waited for once the bank is gone for everyone, before answering that its rows are
   * still being removed (default BANK_DELETE_ANSWER_MS). */
  bankDeleteAnswerMs?: number;
}

/** A bank of a million facts takes minutes to remove row by row: HTTP clients and proxies give up long before (undici
 * after 300 s), so a delete answers once the bank is gone for every reader and writer and this long has passed. */
export const BANK_DELETE_ANSWER_MS = 2_000;

export interface BankInput {
  id?: string;
  name?: string;
  mission?: string;
  config?: BankConfig;
}

export interface RetainOptions {
  async?: boolean;
  /** Idempotency key: the same key for the same bank returns the first operation's outcome. */
  operationId?: string;
  /** Hears a sync retain's progress (items done, items in all, and the chunks of its new text written and in all). */
  progress?: Progress;
}

export type RetainOutcome = { operation: Operation; result: RetainResult | null };

/** What the engine announces to other modules (consolidation listens), without importing them. */
export interface EngineEvents {
  /** A retain finished (its facts are stored). */
  retained: [bankId: string, result: RetainResult, input: RetainRequest];
  /** A bank and everything in it were deleted (metrics drop its series). */
  bankDeleted: [bankId: string];
  /** A recall answered (metrics listen). */
  recalled: [bankId: string, timings: RecallTimings];
  /** A deletion removed facts; the deletion waits for the listeners before it answers. */
  deleted: [bankId: string, deleted: DeleteResult];
}

/** What a request whose idempotency key is bound already gets: the bound operation's outcome, or why not. */
function earlierOutcome(bound: KeyedOperation, hash: string, key: string, async: boolean): RetainOutcome {
  const { operation } = bound;
  if (bound.payloadHash !== null && bound.payloadHash !== hash)
    throw new CairnError(
      'idempotency_key_reused',
      `operationId '${key}' was first used with another payload (operation ${operation.id}); a retry must send the same items and documentMode, different items need a new operationId`,
    );
  if (operation.status === 'succeeded') return { operation, result: operation.result as RetainResult };
  if (async) return { operation, result: null };
  throw new CairnError(
    'conflict',
    `operationId '${key}' names operation ${operation.id}, still running; poll GET /v1/operations/${operation.id} for its result`,
  );
}

export class Engine {
  readonly operations: Operations;
  readonly events = new Events<EngineEvents>();
  /** Documents, facts, entities, and deleting them. */
  readonly memories: Memories;
  /** Evidence chains, histories, why, tombstones. */
  readonly audit: Audit;
  /** Answers from a bank's memory, with citations. */
  readonly reflect: Reflection;

  /** Running recalls and retains (the given count, or one of its own). */
  private readonly activity: Activity;
  /** The documents this process's retains are writing (a DELETE of one waits for its retain). */
  private readonly inFlight = new DocumentsInFlight();
  /** Retains hold their bank's write lease (one writer per bank across processes). */
  private readonly leases: BankWriteLeases;

  constructor(private readonly deps: EngineDeps) {
    this.activity = deps.activity ?? new Activity();
    this.leases = new BankWriteLeases(deps.store);
    this.operations = new Operations(deps.store);
    const requireBank = (id: string): Promise<Bank> => this.requireBank(id);
    this.memories = new Memories(
      deps.store,
      requireBank,
      (bankId, deleted) => this.events.emit('deleted', bankId, deleted),
      (bankId, documentId) => this.retainWriting(bankId, documentId),
    );
    this.audit = new Audit(deps.store, requireBank, (bankId, factId) => this.memories.getFact(bankId, factId));
    this.reflect = new Reflection({ store: deps.store, recall: (bankId, request) => this.recall(bankId, request) }, requireBank);
    // Async retains, and after a restart every retain left unfinished (a synchronous one with a key keeps its input).
    this.operations.register('retain', async (op) => {
      if (op.input === null)
        throw new CairnError(
          'internal',
          'the process stopped during this synchronous retain; the documents it finished are stored: send the request again to finish it',
        );
      return this.runRetain(op, op.input as RetainRequest);
    });
  }

  /** The active store's name (for /health). */
  get storeName(): string {
    return this.deps.store.name;
  }

  /** The active embedder's id (for /health; a bank's vectors are of one embedder). */
  get embedderId(): string {
    return this.deps.embedder.id;
  }

  // banks
  async createBank(input: BankInput): Promise<Bank> {
    const id = input.id ?? newId('bank');
    if (await this.deps.store.getBank(id)) throw new CairnError('conflict', `bank '${id}' already exists`);
    const now = nowIso();
    const bank: Bank = {
      id,
      name: input.name ?? id,
      mission: input.mission ?? '',
      config: withoutNulls(input.config ?? {}),
      embedder: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.createBank(bank);
    return bank;
  }

  /** The bank, or null when there is none. */
  findBank(id: string): Promise<Bank | null> {
    return this.deps.store.getBank(id);
  }

  /** The bank; a missing one's 404 says when it was deleted, when it was. */
  requireBank(id: string): Promise<Bank> {
    return requireBankIn(this.deps.store, id);
  }

  listBanks(): Promise<Bank[]> {
    return this.deps.store.listBanks();
  }

  async updateBank(id: string, patch: Omit<BankInput, 'id'>): Promise<Bank> {
    const bank = await this.requireBank(id);
    const next: Bank = {
      ...bank,
      name: patch.name ?? bank.name,
      mission: patch.mission ?? bank.mission,
      // A merge patch: the keys it names replace the bank's, a null removes one.
      config: patch.config ? withoutNulls({ ...bank.config, ...patch.config }) : bank.config,
      updatedAt: nowIso(),
    };
    await this.deps.store.updateBank(next);
    return next;
  }

  /**
   * Deletes the bank. Answers once everything of it is removed (complete), or, when that takes longer than
   * bankDeleteAnswerMs, with the bank gone for every reader and writer and its rows still being removed (not
   * complete; a crash meanwhile leaves them to be removed when the store opens again).
   */
  async deleteBank(id: string, reason?: string): Promise<{ complete: boolean }> {
    await this.requireBank(id);
    let hide!: () => void;
    let wasHidden = false;
    const hidden = new Promise<void>((resolve) => {
      hide = () => {
        wasHidden = true;
        resolve();
      };
    });
    const removed = this.deps.store.deleteBank(id, reason, { hidden: hide }).then(async () => {
      // Not hidden by this call: another delete of the bank began first (it answers for the bank).
      if (!wasHidden) await this.requireBank(id);
      await this.events.emit('bankDeleted', id);
    });
    const waitMs = this.deps.bankDeleteAnswerMs ?? BANK_DELETE_ANSWER_MS;
    let timer: NodeJS.Timeout | undefined;
    const answerAnyway = hidden.then(() => new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))));
    const complete = await Promise.race([removed.then(() => true), answerAnyway]).finally(() => clearTimeout(timer));
    if (!complete)
      removed.catch((e: unknown) =>
        log.warn(
          `the delete of bank '${id}' stopped before all its rows were removed (they are when the store opens again): ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
    return { complete };
  }

  // retain
  /**
   * Retains items, as an operation: async (stored with its input, run in the background) or sync (run now; stored
   * with its input too when it has an idempotency key, so a crash does not leave the key stuck). An idempotency key
   * binds the first request's operation; a retry with the same payload gets that operation's outcome, another payload
   * is refused (422), and a sync retry while it still runs is told so (409).
   */
  async retain(bankId: string, request: RetainRequest, options: RetainOptions = {}): Promise<RetainOutcome> {
    const bank = await this.requireBank(bankId);
    this.checkEmbedder(bank);
    // Stored text must be well-formed for its offsets to hold (see wellFormed).
    const items = request.items.map((item) => ({
      ...item,
      content: wellFormed(item.content),
      ...(item.speaker !== undefined ? { speaker: wellFormed(item.speaker) } : {}),
      ...(item.context !== undefined ? { context: wellFormed(item.context) } : {}),
      ...(item.metadata !== undefined
        ? { metadata: Object.fromEntries(Object.entries(item.metadata).map(([k, v]) => [wellFormed(k), wellFormed(v)])) }
        : {}),
      ...(item.tags !== undefined ? { tags: item.tags.map(wellFormed) } : {}),
    }));
    const input: RetainRequest = { items, documentMode: request.documentMode ?? 'replace' };
    const keep = options.async === true || options.operationId !== undefined;
    const op = await this.operations.create(
      bankId,
      'retain',
      keep ? input : null,
      input.items.length,
      options.async ? 'queued' : 'running',
    );
    if (options.operationId !== undefined) {
      const hash = payloadHash(input);
      const bound = await this.deps.store.bindOperationKey(bankId, options.operationId, hash, op);
      if (!bound.created) return earlierOutcome(bound, hash, options.operationId, options.async === true);
    } else await this.deps.store.createOperation(op);
    if (options.async) {
      this.operations.start(op);
      return { operation: op, result: null };
    }
    const result = await this.operations.perform(op, () => this.runRetain(op, input, options.progress));
    return { operation: op, result };
  }

  /** A retain in progress that names the document: running here, or queued or running in any process (an async
   * retain keeps its input in the store). A synchronous retain without a key in another process is not seen. A run
   * here whose operation has ended meanwhile (failed by its bank's deletion, finished by a process that took it over)
   * does not count: it only has yet to notice. */
  private async retainWriting(bankId: string, documentId: string): Promise<string | null> {
    for (const id of this.inFlight.writersOf(bankId, documentId)) {
      const op = await this.deps.store.getOperation(id);
      if (op && isUnfinished(op.status)) return id;
    }
    const [stored] = await this.deps.store.retainsNaming(bankId, documentId);
    return stored ?? null;
  }

  /** Runs a stored retain operation; a bank deleted meanwhile is named as the reason it failed. */
  private async runRetain(op: Operation, input: RetainRequest, progress?: Progress): Promise<RetainResult> {
    const release = this.inFlight.hold(op.bankId, input, op.id);
    try {
      const bank = await this.requireBank(op.bankId);
      this.checkEmbedder(bank);
      const result = await this.activity.during(() =>
        traced('retain', { 'cairn.bank': bank.id, 'cairn.items': input.items.length }, (span) =>
          retain({ ...this.deps, leases: this.leases }, bank, input, {
            operation: op,
            progress,
            waiting: (what) => this.recordWaiting(op, what),
          }).then((r) => {
            span.setAttribute('cairn.facts', r.facts);
            return r;
          }),
        ),
      );
      await this.events.emit('retained', bank.id, result, input);
      return result;
    } catch (e) {
      if (!(await this.deps.store.getBank(op.bankId))) throw new CairnError('not_found', bankDeletedError(op.bankId));
      throw e;
    } finally {
      release();
    }
  }

  /** Records what a running retain waits for (null: it no longer waits), while it runs here; a refused write (the
   * operation stopped or was taken over meanwhile) changes nothing, and the retain finds out at its first write. */
  private async recordWaiting(op: Operation, what: string | null): Promise<void> {
    const { waiting: _, ...progress } = op.progress;
    const next: Operation = { ...op, progress: what === null ? progress : { ...progress, waiting: what }, updatedAt: nowIso() };
    if (await this.deps.store.updateOperation(next, ['running'])) Object.assign(op, next);
  }

  private checkEmbedder(bank: Bank): void {
    if (bank.embedder && bank.embedder !== this.deps.embedder.id)
      throw new CairnError(
        'embedder_mismatch',
        `bank '${bank.id}' holds vectors of '${bank.embedder}' but the active embedder is '${this.deps.embedder.id}'; run 'cairn reembed ${bank.id}' or start Cairn with that embedder`,
      );
  }

  // recall
  async recall(bankId: string, request: RecallRequest): Promise<RecallResponse> {
    const bank = await this.requireBank(bankId);
    this.checkEmbedder(bank);
    const { store, embedder, reranker, recallSettings } = this.deps;
    const response = await this.activity
      .during(
        () =>
          traced('recall', { 'cairn.bank': bankId }, () =>
            recall(
              {
                store,
                embedder,
                reranker: reranker ?? undefined,
                ...(recallSettings ? { settings: recallSettings } : {}),
                // Listeners only count: one failing must not fail the recall.
                onTimings: (timings) => {
                  this.events.emit('recalled', bankId, timings).catch((e: Error) => log.warn(`a recall listener failed: ${e.message}`));
                },
              },
              bankId,
              request,
            ),
          ),
        { read: true },
      )
      .catch(async (e: unknown) => {
        await this.requireBank(bankId);
        throw e;
      });
    // A bank deleted while the recall ran leaves it nothing to find: that is a 404 (saying when it was deleted), not
    // a bank with no memories.
    if (response.results.length === 0) await this.requireBank(bankId);
    return response;
  }

  /**
   * An operation by its id or by the idempotency key it was bound to. A key used in several banks needs the bank;
   * with a bank, only that bank's operations are found.
   */
  async getOperation(id: string, bankId?: string): Promise<Operation> {
    const { store } = this.deps;
    if (bankId !== undefined) {
      const op = (await store.operationByKey(bankId, id)) ?? (await store.getOperation(id));
      if (op?.bankId === bankId) return op;
      await this.requireBank(bankId);
      throw new CairnError('not_found', `bank '${bankId}' has no operation with id or operationId ${quoteId(id)}`);
    }
    const op = await store.getOperation(id);
    if (op) return op;
    const keyed = await store.operationsByKey(id);
    if (keyed.length === 1) return keyed[0];
    if (keyed.length > 1)
      throw new CairnError(
        'conflict',
        `operationId '${id}' names operations of ${keyed.length} banks (${keyed.map((o) => o.bankId).join(', ')}); say which with ?bank=<bank>`,
      );
    throw notFound('operation', id);
  }

  /** The bank's operations, newest first, without their input (GET /v1/operations/{id}?include=input has it). */
  async listOperations(bankId: string, query: OperationListQuery): Promise<Operation[]> {
    await this.requireBank(bankId);
    return this.deps.store.listOperations(bankId, query);
  }

  /** Re-embeds every fact of a bank with the active embedder (after an embedder change). */
  async reembed(bankId: string, progress?: (done: number, total: number) => void): Promise<number> {
    await this.requireBank(bankId);
    await this.deps.store.resetEmbedder(bankId, this.deps.embedder.id);
    let offset = 0;
    let done = 0;
    for (;;) {
      const page = await this.deps.store.listFacts(bankId, { limit: 256, offset, includeSuperseded: true });
      if (page.facts.length === 0) break;
      const vectors = await this.deps.embedder.embed(page.facts.map((f) => f.text));
      await this.deps.store.putVectors(
        bankId,
        this.deps.embedder.id,
        page.facts.map((f, i) => ({ id: f.id, vector: vectors[i] })),
      );
      offset += page.facts.length;
      done += page.facts.length;
      progress?.(done, page.total);
    }
    log.info(`re-embedded ${done} facts of bank ${bankId} with ${this.deps.embedder.id}`);
    return done;
  }

  async close(): Promise<void> {
    await this.operations.close();
    await this.deps.store.close();
  }
}
