// The server store: a MemoryStore over Neo4j (system of record: banks, documents, chunks, facts, entities, links,
// observations, evidence, history, queue, operations, tombstones; BM25 and the entity graph) and Qdrant (fact
// vectors). Any number of API and worker processes can share it; none keeps state of its own.
//
// Consistency across the two: a write with vectors is staged in Neo4j first (one transaction: its facts and
// chunks `pending`, invisible to every read, their vectors kept on them), then its vectors are upserted to
// Qdrant (point ids derived from fact ids: idempotent), then the staging is activated. A process dying between
// the steps leaves either a staging nobody can see (reconcile completes it from the kept vectors, or a re-retain
// replaces it) or points without a visible fact, which vector search never returns because Neo4j confirms every
// hit (reconcile deletes them). Deletes commit in Neo4j first and then delete points, with the same guarantee.
import {
  nowIso,
  type Bank,
  type Chunk,
  type DocumentRecord,
  type Entity,
  type Evidence,
  type Fact,
  type FactLink,
  type Observation,
  type ObservationRevision,
  type Operation,
  type OperationStatus,
  checkBankId,
} from '../../core/index.ts';
import { log } from '../../log.ts';
import {
  BANK_DELETED,
  type Claim,
  type DeadLetter,
  type DeleteResult,
  type EntityEdge,
  type FactFacets,
  type FactFilter,
  type FactPage,
  type Heartbeat,
  type ItemWrite,
  type KeyedOperation,
  type ListFactsQuery,
  type MemoryStore,
  type ObservationWrite,
  type OperationListQuery,
  type QueueDetail,
  type SessionInfo,
  type Tombstone,
  type TombstoneTarget,
  type VectorRecord,
  type WriteLease,
} from '../ports.ts';
import { Neo4jConnection } from '../neo4j/connection.ts';
import * as deletes from '../neo4j/deletes.ts';
import { Neo4jGraphIndex, Neo4jKeywordIndex } from '../neo4j/indexes.ts';
import { dropOrphanBankIndexes, KeywordSchema, orphanBankIndexes } from '../neo4j/keyword-schema.ts';
import { migrateNeo4j } from '../neo4j/migrate.ts';
import * as leases from '../neo4j/leases.ts';
import * as queue from '../neo4j/queue.ts';
import { Neo4jRecords } from '../neo4j/records.ts';
import * as writes from '../neo4j/writes.ts';
import type { PointSource } from '../qdrant/points.ts';
import { QdrantVectors } from '../qdrant/vectors.ts';
import type { ServerStoreOptions } from './options.ts';
import { ServerVectorIndex } from './vector-index.ts';

export class ServerStore implements MemoryStore {
  readonly name = 'neo4j+qdrant';
  readonly db: Neo4jConnection;
  readonly qdrant: QdrantVectors;
  readonly records: Neo4jRecords;
  readonly vectors: ServerVectorIndex;
  readonly keywords: Neo4jKeywordIndex;
  readonly graph: Neo4jGraphIndex;
  /** The banks' own full-text indexes (one per bank, so BM25 statistics are per bank). */
  readonly keywordSchema: KeywordSchema;

  constructor(options: ServerStoreOptions) {
    this.db = new Neo4jConnection(options.neo4j);
    this.qdrant = new QdrantVectors(options.qdrant);
    this.records = new Neo4jRecords(this.db);
    this.vectors = new ServerVectorIndex(this.db, this.records, this.qdrant);
    this.keywordSchema = new KeywordSchema(this.db);
    this.keywords = new Neo4jKeywordIndex(this.db, this.keywordSchema);
    this.graph = new Neo4jGraphIndex(this.db, this.records);
  }

  /** Connects to both servers and applies pending migrations (Neo4j constraints and indexes, Qdrant specs). */
  static async open(options: ServerStoreOptions): Promise<ServerStore> {
    const store = new ServerStore(options);
    try {
      await store.db.verify();
      const applied = await migrateNeo4j(store.db);
      if (applied.length) log.info(`neo4j migrations applied: ${applied.join(', ')}`);
      await store.qdrant.migrate();
      return store;
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  // banks
  /** The bank, then its full-text indexes (a schema command cannot share the bank's transaction). */
  async createBank(b: Bank): Promise<void> {
    checkBankId(b.id);
    await this.records.createBank(b);
    this.keywordSchema.forget(b.id);
    await this.keywordSchema.ensure(b.id);
  }
  getBank(id: string): Promise<Bank | null> {
    return this.records.getBank(id);
  }
  listBanks(): Promise<Bank[]> {
    return this.records.listBanks();
  }
  updateBank(b: Bank): Promise<void> {
    return this.records.updateBank(b);
  }
  async deleteBank(id: string, reason = BANK_DELETED, options: { hidden?: () => void } = {}): Promise<void> {
    if (!(await deletes.dropBank(this.db, id, reason, nowIso()))) return;
    options.hidden?.();
    await deletes.sweepBank(this.db, id);
    this.keywordSchema.forget(id);
    await this.qdrant.deleteBank(id);
  }
  /** Full-text indexes of deleted banks (the sweep drops them last: a crash just before leaves them). */
  orphanKeywordIndexes(): Promise<string[]> {
    return orphanBankIndexes(this.db);
  }
  dropOrphanKeywordIndexes(names: string[]): Promise<string[]> {
    return dropOrphanBankIndexes(this.db, names);
  }

  // documents and chunks
  getDocument(bankId: string, id: string): Promise<DocumentRecord | null> {
    return this.records.getDocument(bankId, id);
  }
  listDocuments(bankId: string, limit: number, offset: number): Promise<DocumentRecord[]> {
    return this.records.listDocuments(bankId, limit, offset);
  }
  listChunks(bankId: string, documentId: string): Promise<Chunk[]> {
    return this.records.listChunks(bankId, documentId);
  }
  getChunks(bankId: string, ids: string[]): Promise<Chunk[]> {
    return this.records.getChunks(bankId, ids);
  }
  listLinks(bankId: string, limit: number, offset: number): Promise<FactLink[]> {
    return this.records.listLinks(bankId, limit, offset);
  }

  async writeItem(w: ItemWrite): Promise<void> {
    await this.keywordSchema.ensure(w.bankId);
    const staged = await writes.stageItem(this.db, w, nowIso());
    if (staged.removedFactIds.length && staged.bankEmbedder) await this.dropPoints(staged.bankEmbedder, staged.removedFactIds);
    if (!staged.pending || !staged.bankEmbedder) return;
    await this.upsertPoints(staged.bankEmbedder, staged.sources, w.vectors);
    await writes.activateItem(this.db, staged);
  }

  async deleteDocument(bankId: string, documentId: string, reason: string): Promise<DeleteResult | null> {
    const deleted = await deletes.deleteDocument(this.db, bankId, documentId, reason, nowIso());
    if (!deleted) return null;
    await this.dropBankPoints(bankId, deleted.pointsToDelete);
    return deleted.result;
  }

  async deleteFacts(bankId: string, factIds: string[], reason: string): Promise<DeleteResult> {
    const deleted = await deletes.deleteFacts(this.db, bankId, factIds, reason, nowIso());
    await this.dropBankPoints(bankId, deleted.pointsToDelete);
    return deleted.result;
  }

  // facts and entities
  getFacts(bankId: string, ids: string[]): Promise<Fact[]> {
    return this.records.getFacts(bankId, ids);
  }
  /** Neo4j returns a fact's properties as one map either way: whole facts serve as their facets. */
  factFacets(bankId: string, ids: string[]): Promise<FactFacets[]> {
    return this.records.getFacts(bankId, ids);
  }
  listFacts(bankId: string, query: ListFactsQuery): Promise<FactPage> {
    return this.records.listFacts(bankId, query);
  }
  newestFacts(bankId: string, query: FactFilter & { entityId?: string; limit: number }): Promise<Fact[]> {
    return this.records.newestFacts(bankId, query);
  }
  factsInTimeRange(bankId: string, start: string, end: string, limit: number, filter?: FactFilter): Promise<Fact[]> {
    return this.records.factsInTimeRange(bankId, start, end, limit, filter);
  }
  /** Computed from the chunks at every call: the server store keeps no state between requests. */
  sessions(bankId: string): Promise<SessionInfo[]> {
    return this.records.sessions(bankId);
  }
  factsOfSessions(bankId: string, sessionIds: string[], limitPerSession: number, filter?: FactFilter): Promise<Fact[]> {
    return this.records.factsOfSessions(bankId, sessionIds, limitPerSession, filter);
  }
  /** Facts extracted from the given chunks (under the filter), for the keyword arm's chunk-to-fact flow. */
  factIdsOfChunks(bankId: string, chunkIds: string[], filter?: FactFilter): Promise<Array<{ factId: string; chunkId: string }>> {
    return this.records.factIdsOfChunks(bankId, chunkIds, filter);
  }
  getEntities(bankId: string, ids: string[]): Promise<Entity[]> {
    return this.records.getEntities(bankId, ids);
  }
  countActiveFacts(bankId: string): Promise<number> {
    return this.records.countActiveFacts(bankId);
  }
  listEntities(bankId: string, limit: number, offset: number): Promise<Entity[]> {
    return this.records.listEntities(bankId, limit, offset);
  }
  entityGraph(bankId: string, entityIds: string[]): Promise<EntityEdge[]> {
    return this.records.entityGraph(bankId, entityIds);
  }
  findEntities(bankId: string, keys: string[]): Promise<Entity[]> {
    return this.records.entitiesByKeys(bankId, keys);
  }
  async getVectors(bankId: string, ids: string[]): Promise<Map<string, Float32Array>> {
    const bank = await this.records.getBank(bankId);
    if (!bank?.embedder || ids.length === 0) return new Map();
    return this.qdrant.retrieve(bank.embedder, ids);
  }
  async resetEmbedder(bankId: string, embedder: string | null): Promise<void> {
    await writes.resetEmbedder(this.db, bankId, embedder, nowIso());
    await this.qdrant.deleteBank(bankId);
  }
  async putVectors(bankId: string, embedder: string, vectors: VectorRecord[]): Promise<void> {
    if (vectors.length === 0) return;
    const sources = await writes.stageVectors(this.db, bankId, embedder, vectors, nowIso());
    await this.upsertPoints(embedder, sources, vectors);
    await writes.activateVectors(
      this.db,
      bankId,
      sources.map((s) => s.id),
    );
  }

  // write leases
  takeWriteLease(lease: WriteLease, takeOver: string | null = null): Promise<WriteLease> {
    return leases.takeWriteLease(this.db, lease, takeOver, nowIso());
  }
  releaseWriteLease(bankId: string, holder: string): Promise<void> {
    return leases.releaseWriteLease(this.db, bankId, holder);
  }

  // consolidation queue
  claimUnconsolidated(bankId: string, workerId: string, limit: number, leaseMs: number): Promise<Claim | null> {
    return queue.claim(this.db, bankId, workerId, limit, leaseMs, new Date());
  }
  async applyObservations(w: ObservationWrite): Promise<void> {
    await this.keywordSchema.ensure(w.bankId);
    const staged = await queue.stageObservations(this.db, w, nowIso());
    if (!staged.bankEmbedder) return;
    if (staged.removedIds.length) await this.dropPoints(staged.bankEmbedder, staged.removedIds);
    if (staged.sources.length) {
      await this.upsertPoints(staged.bankEmbedder, staged.sources, w.vectors);
      await writes.activateVectors(
        this.db,
        w.bankId,
        staged.sources.map((s) => s.id),
      );
    }
  }
  failClaim(bankId: string, workerId: string, factIds: string[], error: string, maxAttempts: number, retryAfterMs: number): Promise<void> {
    return queue.failClaim(this.db, bankId, workerId, factIds, error, maxAttempts, retryAfterMs);
  }
  listDeadLetters(bankId: string): Promise<DeadLetter[]> {
    return queue.deadLetters(this.db, bankId);
  }
  retryDeadLetters(bankId: string, factIds?: string[]): Promise<number> {
    return queue.retryDeadLetters(this.db, bankId, factIds);
  }
  async hasWaiting(bankId: string): Promise<boolean> {
    return (await queue.backlog(this.db, bankId)).waiting > 0;
  }
  backlog(bankId: string): Promise<{ waiting: number; oldestWaitingAt: string | null; failed: number; consolidated: number }> {
    return queue.backlog(this.db, bankId);
  }
  banksWithBacklog(): Promise<string[]> {
    return queue.banksWithBacklog(this.db);
  }
  queueDetail(bankId: string): Promise<QueueDetail> {
    return queue.queueDetail(this.db, bankId, nowIso());
  }

  // liveness
  beat(heartbeat: Heartbeat): Promise<void> {
    return queue.beat(this.db, heartbeat);
  }
  heartbeats(): Promise<Heartbeat[]> {
    return queue.heartbeats(this.db);
  }
  retireHeartbeat(id: string, beatAt: string | null): Promise<boolean> {
    return queue.retireHeartbeat(this.db, id, beatAt);
  }

  // observations and audit
  getObservations(bankId: string, ids: string[]): Promise<Observation[]> {
    return this.records.getObservations(bankId, ids);
  }
  evidenceOf(bankId: string, observationId: string): Promise<Evidence[]> {
    return this.records.evidenceOf(bankId, observationId);
  }
  observationsOfFact(bankId: string, factId: string): Promise<Evidence[]> {
    return this.records.observationsOfFact(bankId, factId);
  }
  historyOf(bankId: string, observationId: string): Promise<ObservationRevision[]> {
    return this.records.historyOf(bankId, observationId);
  }
  tombstones(bankId: string, limit: number, offset = 0): Promise<Tombstone[]> {
    return this.records.tombstones(bankId, limit, offset);
  }
  tombstoneOf(bankId: string, targetId: string, kinds: TombstoneTarget[]): Promise<Tombstone | null> {
    return this.records.tombstoneOf(bankId, targetId, kinds);
  }
  restoreTombstones(tombstones: Tombstone[]): Promise<void> {
    return this.records.restoreTombstones(tombstones);
  }

  // operations
  createOperation(op: Operation): Promise<void> {
    return this.records.createOperation(op);
  }
  updateOperation(op: Operation, from?: OperationStatus[]): Promise<boolean> {
    return this.records.updateOperation(op, from);
  }
  adoptOperation(id: string, from: string | null, to: string): Promise<boolean> {
    return this.records.adoptOperation(id, from, to);
  }
  getOperation(id: string): Promise<Operation | null> {
    return this.records.getOperation(id);
  }
  listOperations(bankId: string, query: OperationListQuery): Promise<Operation[]> {
    return this.records.listOperations(bankId, query);
  }
  unfinishedOperations(): Promise<Operation[]> {
    return this.records.unfinishedOperations();
  }
  retainsNaming(bankId: string, documentId: string): Promise<string[]> {
    return this.records.retainsNaming(bankId, documentId);
  }
  operationByKey(bankId: string, key: string): Promise<Operation | null> {
    return this.records.operationByKey(bankId, key);
  }
  operationsByKey(key: string): Promise<Operation[]> {
    return this.records.operationsByKey(key);
  }
  bindOperationKey(bankId: string, key: string, payloadHash: string, op: Operation): Promise<KeyedOperation & { created: boolean }> {
    return this.records.bindOperationKey(bankId, key, payloadHash, op);
  }

  // the Qdrant half
  private async upsertPoints(embedder: string, sources: PointSource[], vectors: VectorRecord[]): Promise<void> {
    const byId = new Map(vectors.map((v) => [v.id, v.vector]));
    await this.qdrant.upsert(
      embedder,
      sources.flatMap((source) => {
        const vector = byId.get(source.id);
        return vector ? [{ source, vector }] : [];
      }),
    );
  }

  /**
   * Deletes points of facts Neo4j no longer has. The deletion there is committed and vector search confirms
   * every hit, so a failure here cannot resurface the facts: it is logged, and `cairn reconcile` removes the points.
   */
  private async dropPoints(embedder: string, factIds: string[]): Promise<void> {
    try {
      await this.qdrant.deleteFacts(embedder, factIds);
    } catch (e) {
      log.error(
        `could not delete ${factIds.length} point(s) from Qdrant (${e instanceof Error ? e.message : String(e)}); run 'cairn reconcile'`,
      );
    }
  }

  private async dropBankPoints(bankId: string, factIds: string[]): Promise<void> {
    if (factIds.length === 0) return;
    const bank = await this.records.getBank(bankId);
    if (bank?.embedder) await this.dropPoints(bank.embedder, factIds);
  }
}
