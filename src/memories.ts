// The memory a bank holds, as use cases: its documents (with the chunk text facts point into), facts and entities,
// and deleting facts and documents. The engine builds it (engine.memories); the routes and the CLI call it.
import { notFound, type Bank, type Chunk, type DocumentRecord, type Entity, type Fact } from './core/index.ts';
import type { AuditReads, DeleteResult, FactPage, Forgetting, ListFactsQuery, RecallReads } from './store/index.ts';

export type MemoryReads = Pick<RecallReads, 'getFacts' | 'getDocument' | 'listChunks'> &
  Pick<AuditReads, 'listFacts' | 'listEntities' | 'listDocuments'> &
  Forgetting;

export class Memories {
  constructor(
    private readonly store: MemoryReads,
    private readonly requireBank: (bankId: string) => Promise<Bank>,
    /** Told of every deletion before it answers (the engine's 'deleted' event). */
    private readonly deleted: (bankId: string, deleted: DeleteResult) => Promise<void>,
  ) {}

  async getFact(bankId: string, factId: string): Promise<Fact> {
    await this.requireBank(bankId);
    const [fact] = await this.store.getFacts(bankId, [factId]);
    if (!fact) throw notFound('fact', factId);
    return fact;
  }

  async listFacts(bankId: string, query: ListFactsQuery): Promise<FactPage> {
    await this.requireBank(bankId);
    return this.store.listFacts(bankId, query);
  }

  async listEntities(bankId: string, limit: number, offset: number): Promise<Entity[]> {
    await this.requireBank(bankId);
    return this.store.listEntities(bankId, limit, offset);
  }

  /** Documents in the order they were first retained. */
  async listDocuments(bankId: string, limit: number, offset: number): Promise<DocumentRecord[]> {
    await this.requireBank(bankId);
    return this.store.listDocuments(bankId, limit, offset);
  }

  /** A document with its chunks in order. */
  async getDocument(bankId: string, documentId: string): Promise<DocumentRecord & { chunks: Chunk[] }> {
    await this.requireBank(bankId);
    const doc = await this.store.getDocument(bankId, documentId);
    if (!doc) throw notFound('document', documentId);
    return { ...doc, chunks: await this.store.listChunks(bankId, documentId) };
  }

  async deleteDocument(bankId: string, documentId: string, reason: string): Promise<DeleteResult> {
    await this.requireBank(bankId);
    const deleted = await this.store.deleteDocument(bankId, documentId, reason);
    if (!deleted) throw notFound('document', documentId);
    await this.deleted(bankId, deleted);
    return deleted;
  }

  async deleteFact(bankId: string, factId: string, reason: string): Promise<DeleteResult> {
    await this.getFact(bankId, factId);
    const deleted = await this.store.deleteFacts(bankId, [factId], reason);
    await this.deleted(bankId, deleted);
    return deleted;
  }
}
