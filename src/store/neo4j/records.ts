// Reads and plain record writes of the Neo4j side of the server store: banks, documents, chunks, facts,
// entities, observations with evidence and history, links, operations, tombstones.
import type {
  Bank,
  Chunk,
  DocumentRecord,
  Entity,
  Evidence,
  Fact,
  FactLink,
  Observation,
  ObservationRevision,
  Operation,
  OperationStatus,
} from '../../core/index.ts';
import { coMentionOrder, toEdges } from '../co-mentions.ts';
import type {
  EntityEdge,
  FactFilter,
  FactPage,
  KeyedOperation,
  ListFactsQuery,
  OperationListQuery,
  SessionInfo,
  Tombstone,
  TombstoneTarget,
} from '../ports.ts';
import { numberSessions } from '../session-order.ts';
import type { Neo4jConnection, Row } from './connection.ts';
import {
  propsOf,
  toBank,
  toChunk,
  toDocument,
  toEntity,
  toEvidence,
  toFact,
  toLink,
  toOperation,
  toRevision,
  toTombstone,
} from './rows.ts';
import * as reads from './statements/reads.ts';
import * as rec from './statements/records.ts';

/** Items in the order of `ids` (the order callers asked for), dropping ids not found. */
export function inOrder<T extends { id: string }>(items: T[], ids: string[]): T[] {
  const byId = new Map(items.map((x) => [x.id, x]));
  const out: T[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const x = byId.get(id);
    if (x && !seen.has(id)) {
      out.push(x);
      seen.add(id);
    }
  }
  return out;
}

const many = <T>(rows: Row[], key: string, map: (p: Record<string, unknown>) => T): T[] => rows.map((r) => map(propsOf(r, key)));
const first = <T>(rows: Row[], key: string, map: (p: Record<string, unknown>) => T): T | null =>
  rows.length ? map(propsOf(rows[0], key)) : null;

export class Neo4jRecords {
  constructor(readonly db: Neo4jConnection) {}

  // banks
  async createBank(b: Bank): Promise<void> {
    await this.db.write(rec.createBank(b));
  }
  async getBank(id: string): Promise<Bank | null> {
    return first(await this.db.read(rec.getBank(id)), 'bank', toBank);
  }
  async listBanks(): Promise<Bank[]> {
    return many(await this.db.read(rec.listBanks()), 'bank', toBank);
  }
  async updateBank(b: Bank): Promise<void> {
    await this.db.write(rec.updateBank(b));
  }
  async setEmbedder(bankId: string, embedder: string | null): Promise<void> {
    await this.db.write(rec.setEmbedder(bankId, embedder));
  }

  // documents and chunks
  async getDocument(bankId: string, id: string): Promise<DocumentRecord | null> {
    return first(await this.db.read(reads.getDocument(bankId, id)), 'document', toDocument);
  }
  async listDocuments(bankId: string, limit: number, offset: number): Promise<DocumentRecord[]> {
    return many(await this.db.read(reads.listDocuments(bankId, limit, offset)), 'document', toDocument);
  }
  async listChunks(bankId: string, documentId: string): Promise<Chunk[]> {
    return many(await this.db.read(reads.listChunks(bankId, documentId)), 'chunk', toChunk);
  }
  async getChunks(bankId: string, ids: string[]): Promise<Chunk[]> {
    if (ids.length === 0) return [];
    return inOrder(many(await this.db.read(reads.getChunks(bankId, ids)), 'chunk', toChunk), ids);
  }

  // facts
  async getFacts(bankId: string, ids: string[]): Promise<Fact[]> {
    if (ids.length === 0) return [];
    return inOrder(many(await this.db.read(reads.getFacts(bankId, ids)), 'fact', toFact), ids);
  }
  async countActiveFacts(bankId: string): Promise<number> {
    const [count] = await this.db.read(reads.countActiveFacts(bankId));
    return Number(count?.total ?? 0);
  }
  async listFacts(bankId: string, q: ListFactsQuery): Promise<FactPage> {
    return this.db.readTx(async (tx) => {
      const [count] = await tx.run(reads.countFacts(bankId, q));
      const facts = many(await tx.run(reads.listFacts(bankId, q)), 'fact', toFact);
      return { facts, total: Number(count?.total ?? 0) };
    });
  }
  async newestFacts(bankId: string, q: FactFilter & { entityId?: string; limit: number }): Promise<Fact[]> {
    return many(await this.db.read(reads.newestFacts(bankId, q)), 'fact', toFact);
  }
  async factsInTimeRange(bankId: string, start: string, end: string, limit: number, filter: FactFilter = {}): Promise<Fact[]> {
    if (Number.isNaN(Date.parse(start)) || Number.isNaN(Date.parse(end))) return [];
    return many(await this.db.read(reads.factsInTimeRange(bankId, start, end, limit, filter)), 'fact', toFact);
  }
  async sessions(bankId: string): Promise<SessionInfo[]> {
    const rows = (await this.db.read(reads.sessions(bankId))).map((r) => ({
      id: String(r.id),
      start: r.start === null || r.start === undefined ? null : String(r.start),
      end: r.end === null || r.end === undefined ? null : String(r.end),
      retained: r.retained === null || r.retained === undefined ? '' : String(r.retained),
    }));
    return numberSessions(rows, (a, b) => (a.retained < b.retained ? -1 : a.retained > b.retained ? 1 : 0)).map(
      ({ id, ordinal, start, end }) => ({
        id,
        ordinal,
        start,
        end,
      }),
    );
  }
  async factsOfSessions(bankId: string, sessionIds: string[], limitPerSession: number, filter: FactFilter = {}): Promise<Fact[]> {
    if (sessionIds.length === 0 || limitPerSession <= 0) return [];
    return many(await this.db.read(reads.factsOfSessions(bankId, [...new Set(sessionIds)], limitPerSession, filter)), 'fact', toFact);
  }
  async factIdsOfChunks(bankId: string, chunkIds: string[], filter: FactFilter = {}): Promise<Array<{ factId: string; chunkId: string }>> {
    if (chunkIds.length === 0) return [];
    const rows = await this.db.read(reads.factIdsOfChunks(bankId, chunkIds, filter));
    return rows.map((r) => ({ factId: String(r.factId), chunkId: String(r.chunkId) }));
  }
  async listLinks(bankId: string, limit: number, offset: number): Promise<FactLink[]> {
    return (await this.db.read(reads.listLinks(bankId, limit, offset))).map((r) => toLink(bankId, r));
  }

  // entities
  async getEntities(bankId: string, ids: string[]): Promise<Entity[]> {
    if (ids.length === 0) return [];
    return inOrder(many(await this.db.read(reads.getEntities(bankId, ids)), 'entity', toEntity), ids);
  }
  async listEntities(bankId: string, limit: number, offset: number): Promise<Entity[]> {
    return many(await this.db.read(reads.listEntities(bankId, limit, offset)), 'entity', toEntity);
  }
  async entityGraph(bankId: string, entityIds: string[]): Promise<EntityEdge[]> {
    const ordered = coMentionOrder(await this.getEntities(bankId, entityIds));
    if (ordered.length < 2) return [];
    const rows = await this.db.read(reads.coMentions(bankId, ordered));
    return toEdges(rows.map((r) => ({ one: String(r.one), other: String(r.other), weight: Number(r.weight) })));
  }
  async entitiesByKeys(bankId: string, keys: string[]): Promise<Entity[]> {
    if (keys.length === 0) return [];
    return many(await this.db.read(reads.entitiesByKeys(bankId, keys)), 'entity', toEntity);
  }

  // observations and audit
  async getObservations(bankId: string, ids: string[]): Promise<Observation[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.read(reads.getObservations(bankId, ids));
    const observations = rows.map((r) => ({
      ...toFact(propsOf(r, 'fact')),
      kind: 'observation' as const,
      proofCount: Number(r.proofCount ?? 0),
    }));
    return inOrder(observations, ids);
  }
  async evidenceOf(bankId: string, observationId: string): Promise<Evidence[]> {
    return (await this.db.read(reads.evidenceOf(bankId, observationId))).map(toEvidence);
  }
  async observationsOfFact(bankId: string, factId: string): Promise<Evidence[]> {
    return (await this.db.read(reads.observationsOfFact(bankId, factId))).map(toEvidence);
  }
  async historyOf(bankId: string, observationId: string): Promise<ObservationRevision[]> {
    return many(await this.db.read(reads.historyOf(bankId, observationId)), 'revision', toRevision);
  }
  async tombstones(bankId: string, limit: number, offset = 0): Promise<Tombstone[]> {
    return many(await this.db.read(rec.listTombstones(bankId, limit, offset)), 'tombstone', toTombstone);
  }
  async tombstoneOf(bankId: string, targetId: string, kinds: TombstoneTarget[]): Promise<Tombstone | null> {
    if (!kinds.length) return null;
    return many(await this.db.read(rec.tombstoneOf(bankId, targetId, kinds)), 'tombstone', toTombstone)[0] ?? null;
  }
  async restoreTombstones(tombstones: Tombstone[]): Promise<void> {
    if (tombstones.length) await this.db.write(rec.createTombstones(tombstones));
  }

  // operations
  async createOperation(op: Operation): Promise<void> {
    await this.db.write(rec.createOperation(op));
  }
  async updateOperation(op: Operation, from?: OperationStatus[]): Promise<boolean> {
    return (await this.db.write(rec.updateOperation(op, from))).length > 0;
  }
  async adoptOperation(id: string, from: string | null, to: string): Promise<boolean> {
    return (await this.db.write(rec.adoptOperation(id, from, to))).length > 0;
  }
  async getOperation(id: string): Promise<Operation | null> {
    return first(await this.db.read(rec.getOperation(id)), 'operation', toOperation);
  }
  async listOperations(bankId: string, query: OperationListQuery): Promise<Operation[]> {
    return many(await this.db.read(rec.listOperations(bankId, query)), 'operation', toOperation);
  }
  async unfinishedOperations(): Promise<Operation[]> {
    return many(await this.db.read(rec.unfinishedOperations()), 'operation', toOperation);
  }
  async retainsNaming(bankId: string, documentId: string): Promise<string[]> {
    const rows = await this.db.read(rec.retainsNaming(bankId, documentId));
    return rows
      .filter((r) => {
        const input = JSON.parse(String(r.input)) as { items?: Array<{ documentId?: unknown }> };
        return input.items?.some((item) => item.documentId === documentId) === true;
      })
      .map((r) => String(r.id));
  }
  async operationByKey(bankId: string, key: string): Promise<Operation | null> {
    return first(await this.db.read(rec.operationByKey(bankId, key)), 'operation', toOperation);
  }
  async operationsByKey(key: string): Promise<Operation[]> {
    return many(await this.db.read(rec.operationsByKey(key)), 'operation', toOperation);
  }
  /** See MemoryStore.bindOperationKey: one transaction, holding the key's lock from the MERGE on. */
  async bindOperationKey(bankId: string, key: string, payloadHash: string, op: Operation): Promise<KeyedOperation & { created: boolean }> {
    return this.db.writeTx(async (tx) => {
      const [row] = await tx.run(rec.takeOperationKey(bankId, key, op.id, payloadHash));
      const boundHash = row.payloadHash === null || row.payloadHash === undefined ? null : String(row.payloadHash);
      const bound = row.operation ? toOperation(propsOf(row, 'operation')) : null;
      const fresh = String(row.operationId) === op.id;
      const retry = !fresh && (bound === null || (bound.status === 'failed' && (boundHash === null || boundHash === payloadHash)));
      if (!fresh && !retry && bound) return { operation: bound, payloadHash: boundHash, created: false };
      if (retry) await tx.run(rec.rebindOperationKey(bankId, key, op.id, payloadHash));
      await tx.run(rec.createOperation(op));
      return { operation: op, payloadHash, created: true };
    });
  }
}
