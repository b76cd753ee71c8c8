// The engine: Cairn's use cases (banks, retain, recall, documents, facts, entities, operations) over the
// ports. The HTTP API and the CLI call this; it never knows which adapters it was given.
import { CairnError, notFound } from './core/errors.ts';
import { newId } from './core/ids.ts';
import { nowIso } from './core/time.ts';
import type { Bank, BankConfig, Entity, Fact, Operation } from './core/types.ts';
import type { Embedder, Reranker } from './embed/ports.ts';
import { log } from './log.ts';
import { Operations } from './operations.ts';
import { recall } from './recall/recall.ts';
import type { RecallRequest, RecallResponse } from './recall/types.ts';
import type { Extractor } from './retain/extractor.ts';
import { retain } from './retain/pipeline.ts';
import type { RetainRequest, RetainResult } from './retain/types.ts';
import type { DeleteResult, FactPage, ListFactsQuery, MemoryStore } from './store/ports.ts';

export interface EngineDeps {
  store: MemoryStore;
  embedder: Embedder;
  reranker: Reranker | null;
  extractor: Extractor;
}

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
}

export type RetainOutcome = { operation: Operation; result: RetainResult | null };

/** Hooks other modules (consolidation) attach to, without the engine importing them. */
export interface EngineHooks {
  afterRetain?: (bankId: string, result: RetainResult) => void;
  afterDelete?: (bankId: string, deleted: DeleteResult) => Promise<void>;
}

export class Engine {
  readonly operations: Operations;
  readonly hooks: EngineHooks = {};

  constructor(readonly deps: EngineDeps) {
    this.operations = new Operations(deps.store);
    this.operations.register('retain', async (op, progress) => {
      const bank = await this.requireBank(op.bankId);
      let last = 0;
      const result = await retain(this.deps, bank, op.input as RetainRequest, (done, total) => {
        if (done - last >= 10 || done === total) {
          last = done;
          void progress(done, total);
        }
      });
      this.hooks.afterRetain?.(bank.id, result);
      return result;
    });
  }

  get store(): MemoryStore {
    return this.deps.store;
  }

  // banks
  async createBank(input: BankInput): Promise<Bank> {
    const id = input.id ?? newId('bank');
    if (await this.deps.store.getBank(id)) throw new CairnError('conflict', `bank '${id}' already exists`);
    const now = nowIso();
    const bank: Bank = { id, name: input.name ?? id, mission: input.mission ?? '', config: input.config ?? {}, embedder: null, createdAt: now, updatedAt: now };
    await this.deps.store.createBank(bank);
    return bank;
  }

  async requireBank(id: string): Promise<Bank> {
    const bank = await this.deps.store.getBank(id);
    if (!bank) throw notFound('bank', id);
    return bank;
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
      config: patch.config ? { ...bank.config, ...patch.config } : bank.config,
      updatedAt: nowIso(),
    };
    await this.deps.store.updateBank(next);
    return next;
  }

  async deleteBank(id: string): Promise<void> {
    await this.requireBank(id);
    await this.deps.store.deleteBank(id);
  }

  // retain
  async retain(bankId: string, request: RetainRequest, options: RetainOptions = {}): Promise<RetainOutcome> {
    const bank = await this.requireBank(bankId);
    this.checkEmbedder(bank);
    if (options.operationId) {
      const previous = await this.deps.store.operationByKey(bankId, options.operationId);
      if (previous) return { operation: previous, result: previous.status === 'succeeded' ? (previous.result as RetainResult) : null };
    }
    if (options.async) {
      const op = await this.operations.submit(bankId, 'retain', request, request.items.length);
      if (options.operationId) await this.deps.store.setOperationKey(bankId, options.operationId, op.id);
      return { operation: op, result: null };
    }
    const now = nowIso();
    const op: Operation = {
      id: newId('op'), bankId, kind: 'retain', status: 'running', progress: { done: 0, total: request.items.length },
      input: null, result: null, error: null, createdAt: now, updatedAt: now,
    };
    const result = await retain(this.deps, bank, request);
    this.hooks.afterRetain?.(bankId, result);
    Object.assign(op, { status: 'succeeded', result, progress: { done: request.items.length, total: request.items.length }, updatedAt: nowIso() });
    if (options.operationId) {
      await this.deps.store.createOperation(op);
      await this.deps.store.setOperationKey(bankId, options.operationId, op.id);
    }
    return { operation: op, result };
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
    return recall({ store: this.deps.store, embedder: this.deps.embedder, reranker: this.deps.reranker ?? undefined }, bankId, request);
  }

  // documents, facts, entities
  async getFact(bankId: string, factId: string): Promise<Fact> {
    await this.requireBank(bankId);
    const [fact] = await this.deps.store.getFacts(bankId, [factId]);
    if (!fact) throw notFound('fact', factId);
    return fact;
  }

  async listFacts(bankId: string, query: ListFactsQuery): Promise<FactPage> {
    await this.requireBank(bankId);
    return this.deps.store.listFacts(bankId, query);
  }

  async listEntities(bankId: string, limit: number, offset: number): Promise<Entity[]> {
    await this.requireBank(bankId);
    return this.deps.store.listEntities(bankId, limit, offset);
  }

  async deleteDocument(bankId: string, documentId: string, reason: string): Promise<DeleteResult> {
    await this.requireBank(bankId);
    const deleted = await this.deps.store.deleteDocument(bankId, documentId, reason);
    if (!deleted) throw notFound('document', documentId);
    await this.hooks.afterDelete?.(bankId, deleted);
    return deleted;
  }

  async deleteFact(bankId: string, factId: string, reason: string): Promise<DeleteResult> {
    await this.getFact(bankId, factId);
    const deleted = await this.deps.store.deleteFacts(bankId, [factId], reason);
    await this.hooks.afterDelete?.(bankId, deleted);
    return deleted;
  }

  async getOperation(id: string): Promise<Operation> {
    const op = await this.deps.store.getOperation(id);
    if (!op) throw notFound('operation', id);
    return op;
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
      await this.deps.store.putVectors(bankId, this.deps.embedder.id, page.facts.map((f, i) => ({ id: f.id, vector: vectors[i] })));
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
