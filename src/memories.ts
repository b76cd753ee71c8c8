// The memory a bank holds, as use cases: its documents (with the chunk text facts point into), facts, sessions,
// entities and the graph of their co-mentions, and deleting facts and documents. The engine builds it
// (engine.memories); the routes and the CLI call it.
import {
  CairnError,
  notFound,
  notFoundOrDeleted,
  quoteId,
  type Bank,
  type Chunk,
  type DocumentRecord,
  type Entity,
  type Fact,
} from './core/index.ts';
import type {
  AuditReads,
  DeleteResult,
  EntityEdge,
  FactPage,
  Forgetting,
  ListFactsQuery,
  RecallReads,
  SessionInfo,
} from './store/index.ts';

export type MemoryReads = Pick<RecallReads, 'getFacts' | 'getDocument' | 'listChunks' | 'getEntities' | 'sessions'> &
  Pick<AuditReads, 'listFacts' | 'listEntities' | 'listDocuments' | 'entityGraph' | 'tombstoneOf'> &
  Forgetting;

/** The most mentioned entities of a bank and how often facts mention two of them together. */
export interface EntityGraph {
  nodes: Entity[];
  edges: EntityEdge[];
}

export class Memories {
  constructor(
    private readonly store: MemoryReads,
    private readonly requireBank: (bankId: string) => Promise<Bank>,
    /** Told of every deletion before it answers (the engine's 'deleted' event). */
    private readonly deleted: (bankId: string, deleted: DeleteResult) => Promise<void>,
    /** A retain in progress that writes the document (its operation id), or null. */
    private readonly retainWriting: (bankId: string, documentId: string) => Promise<string | null> = async () => null,
  ) {}

  async getFact(bankId: string, factId: string): Promise<Fact> {
    await this.requireBank(bankId);
    const [fact] = await this.store.getFacts(bankId, [factId]);
    if (!fact) throw notFoundOrDeleted('fact', factId, await this.store.tombstoneOf(bankId, factId, ['fact', 'observation']));
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

  async getEntity(bankId: string, entityId: string): Promise<Entity> {
    await this.requireBank(bankId);
    const [entity] = await this.store.getEntities(bankId, [entityId]);
    if (!entity) throw notFound('entity', entityId);
    return entity;
  }

  /** The `limit` most mentioned entities, and the pairs of them that active facts mention together. */
  async entityGraph(bankId: string, limit: number): Promise<EntityGraph> {
    await this.requireBank(bankId);
    const nodes = await this.store.listEntities(bankId, limit, 0);
    const edges = await this.store.entityGraph(
      bankId,
      nodes.map((e) => e.id),
    );
    return { nodes, edges };
  }

  /** The bank's sessions, ordinal 1 (the earliest) first. */
  async sessions(bankId: string): Promise<SessionInfo[]> {
    await this.requireBank(bankId);
    return this.store.sessions(bankId);
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
    if (!doc) throw notFoundOrDeleted('document', documentId, await this.store.tombstoneOf(bankId, documentId, ['document']));
    return { ...doc, chunks: await this.store.listChunks(bankId, documentId) };
  }

  /** Deletes the document, unless a retain in progress writes it: that retain would store it (again) after the delete
   * answered, so the client is told to wait for it (409) rather than believe the document gone. */
  async deleteDocument(bankId: string, documentId: string, reason: string): Promise<DeleteResult> {
    await this.requireBank(bankId);
    const writer = await this.retainWriting(bankId, documentId);
    if (writer !== null)
      throw new CairnError(
        'conflict',
        `document ${quoteId(documentId)} is being written by retain operation '${writer}'; delete it once that operation has finished (GET /v1/operations/${writer}?bank=${encodeURIComponent(bankId)})`,
      );
    const deleted = await this.store.deleteDocument(bankId, documentId, reason);
    if (!deleted) throw notFoundOrDeleted('document', documentId, await this.store.tombstoneOf(bankId, documentId, ['document']));
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
