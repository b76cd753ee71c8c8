// The embedded store: one SQLite file (WAL) holding everything, with FTS5 for BM25, an in-memory vector
// index over the stored vectors, and the entity graph read from its tables. Implements the MemoryStore port.
import { join } from 'node:path';
import {
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
  CairnError,
  checkBankId,
} from '../../core/index.ts';
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
import * as ops from './operations.ts';
import { activeFactCount } from './counts.ts';
import { openDatabase, type Db } from './database.ts';
import * as deletes from './deletes.ts';
import { bankPurging } from './purges.ts';
import { factFilterSql } from './filters.ts';
import { coMentions, SqliteGraphIndex } from './graph.ts';
import { coMentionOrder } from '../co-mentions.ts';
import { SqliteKeywordIndex } from './keyword.ts';
import { countKeywordTotals, ensureKeywordIndex, syncPendingKeywordChanges } from './keyword-tables.ts';
import { SqliteReaders } from './readers.ts';
import { BackgroundCheckpoints } from './checkpoints.ts';
import * as leases from './leases.ts';
import * as queue from './queue.ts';
import { SqliteSessions } from './sessions.ts';
import {
  FACT_COLUMNS,
  factFacetColumns,
  inLists,
  DOCUMENT_NOT_PURGING,
  json,
  NOT_PURGING,
  parseJson,
  placeholders,
  toBank,
  toChunk,
  toDocument,
  toEntity,
  toFact,
  toFactFacets,
  toOperation,
  toTombstone,
  type Row,
} from './rows.ts';
import { decodeVector, SqliteVectorIndex } from './vectors/index.ts';
import * as writes from './writes.ts';
import { log } from '../../log.ts';
import { prepared } from './statements.ts';

export interface SqliteStoreOptions {
  /** Data directory: the database is `cairn.db` in it. */
  dataDir?: string;
  /** Or an explicit database file (':memory:' for throwaway stores). */
  file?: string;
  /** Banks with at least this many facts run keyword searches and link reads on reader threads (default 10,000;
   * Infinity: never). */
  offloadFacts?: number;
  /** Facts a document's delete removes per transaction (default deletes.PURGE_BATCH). */
  purgeBatch?: number;
  /** What a large delete does between two of its transactions (default one turn of the event loop; the composition
   * root has it step aside for reads as well: core's readsFirst). */
  purgePause?: () => Promise<void>;
  /** Finish the deletes an earlier process left unfinished (default true; the consolidation thread's connection, opened
   * beside the API's, leaves that to it). */
  resumePurges?: boolean;
}

/** Banks of at least this many facts run their keyword searches and link reads on reader threads (below, BM25 takes a
 * millisecond or two and the hand-off would cost more than it saves). */
const OFFLOAD_FACTS = 10_000;

/** Rows written between two `PRAGMA optimize` runs. */
const OPTIMIZE_EVERY_ROWS = 5000;

/** Facts starting this long before a time range are still looked at for overlapping it (the index bound). */
const TIME_RANGE_LOOK_BACK_MS = 366 * 24 * 3600 * 1000;
/** Newest facts of one kind looked through for an entity's before walking the entity's own facts instead. */
const KIND_WINDOW = 2000;

export class SqliteStore implements MemoryStore {
  readonly name = 'sqlite';
  readonly db: Db;
  readonly vectors: SqliteVectorIndex;
  readonly keywords: SqliteKeywordIndex;
  readonly graph: SqliteGraphIndex;
  private readonly readers: SqliteReaders | null;
  private readonly checkpoints: BackgroundCheckpoints | null;
  private readonly sessionsOf: SqliteSessions;
  private rowsSinceOptimize = 0;
  private readonly purgePace: deletes.PurgePace;
  /** Settles once the deletes a crash interrupted are finished (or the store closed first), with how many it finished. */
  readonly purgesResumed: Promise<number>;

  constructor(options: SqliteStoreOptions) {
    const file = options.file ?? join(options.dataDir ?? 'data', 'cairn.db');
    this.db = openDatabase(file);
    // A database upgraded by migration 008 has its keyword tables counted now; one upgraded by migration 005 (or left
    // with unapplied keyword changes) is indexed per bank now.
    countKeywordTotals(this.db);
    syncPendingKeywordChanges(this.db);
    this.vectors = new SqliteVectorIndex(this.db, file === ':memory:' ? {} : { snapshotDir: join(file, '..', 'vector-snapshots') });
    this.readers = file === ':memory:' ? null : new SqliteReaders(file);
    this.checkpoints = this.readers && new BackgroundCheckpoints(this.db, `${file}-wal`, this.readers);
    this.checkpoints?.start();
    const offload = this.readers && {
      readers: this.readers,
      sizeOf: (bankId: string) => this.vectors.stats(bankId)?.vectors ?? 0,
      minFacts: options.offloadFacts ?? OFFLOAD_FACTS,
    };
    this.keywords = new SqliteKeywordIndex(this.db, offload);
    this.graph = new SqliteGraphIndex(this.db);
    this.sessionsOf = new SqliteSessions(this.db);
    const pause = options.purgePause ?? deletes.DEFAULT_PACE.pause;
    // Between two of a purge's transactions the reader thread also copies the log, while nothing of it writes.
    const checkpoints = this.checkpoints;
    this.purgePace = {
      batch: options.purgeBatch ?? deletes.PURGE_BATCH,
      pause: checkpoints
        ? async () => {
            await pause();
            await checkpoints.catchUp();
          }
        : pause,
    };
    this.purgesResumed =
      options.resumePurges === false
        ? Promise.resolve(0)
        : deletes
            .resumePurges(this.db, this.purgePace, (id) => this.forgetBank(id))
            .then(
              (n) => {
                if (n > 0) log.info(`finished ${n} delete(s) of banks or documents an earlier process left unfinished`);
                return n;
              },
              (err: unknown) => {
                log.warn(`unfinished deletes: ${err instanceof Error ? err.message : String(err)}`);
                return 0;
              },
            );
  }

  /** Settles once the reader threads answer: the store starts them at its first large read, which meanwhile runs on
   * this thread (tests of the reader path wait here first). */
  async readersStarted(): Promise<void> {
    await this.readers?.start();
  }

  async close(): Promise<void> {
    await this.checkpoints?.stop();
    await this.readers?.close();
    await this.vectors.close();
    this.db.close();
  }

  // banks
  async createBank(b: Bank): Promise<void> {
    checkBankId(b.id);
    this.db
      .transaction(() => {
        if (bankPurging(this.db, b.id))
          throw new CairnError(
            'conflict',
            `bank '${b.id}' is being deleted; create it again once its rows are removed (its DELETE answered 202, or has not answered yet)`,
          );
        prepared(
          this.db,
          'INSERT INTO banks (id, name, mission, config, embedder, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        ).run(b.id, b.name, b.mission, json(b.config), b.embedder, b.createdAt, b.updatedAt);
        ensureKeywordIndex(this.db, b.id);
      })
      .immediate();
  }
  async getBank(id: string): Promise<Bank | null> {
    const r = prepared(this.db, `SELECT * FROM banks WHERE id = ? AND ${NOT_PURGING}`).get(id) as Row | undefined;
    return r ? toBank(r) : null;
  }
  async listBanks(): Promise<Bank[]> {
    return (prepared(this.db, `SELECT * FROM banks WHERE ${NOT_PURGING} ORDER BY created_at`).all() as Row[]).map(toBank);
  }
  async updateBank(b: Bank): Promise<void> {
    prepared(this.db, 'UPDATE banks SET name = ?, mission = ?, config = ?, updated_at = ? WHERE id = ?').run(
      b.name,
      b.mission,
      json(b.config),
      b.updatedAt,
      b.id,
    );
  }
  async deleteBank(id: string, reason = BANK_DELETED, options: { hidden?: () => void } = {}): Promise<void> {
    if (await deletes.deleteBank(this.db, id, reason, this.purgePace, options.hidden)) this.forgetBank(id);
  }
  private forgetBank(id: string): void {
    this.vectors.forgetBank(id);
    this.sessionsOf.forget(id);
  }

  // documents and chunks
  async getDocument(bankId: string, id: string): Promise<DocumentRecord | null> {
    const r = prepared(this.db, `SELECT * FROM documents WHERE bank_id = ? AND id = ? AND ${DOCUMENT_NOT_PURGING}`).get(bankId, id) as
      | Row
      | undefined;
    return r ? toDocument(r) : null;
  }
  async listChunks(bankId: string, documentId: string): Promise<Chunk[]> {
    return (
      prepared(this.db, 'SELECT * FROM chunks WHERE bank_id = ? AND document_id = ? ORDER BY idx').all(bankId, documentId) as Row[]
    ).map(toChunk);
  }
  async getChunks(bankId: string, ids: string[]): Promise<Chunk[]> {
    return this.byIds<Chunk>('SELECT * FROM chunks WHERE +bank_id = ? AND id IN', bankId, ids, toChunk);
  }
  async listDocuments(bankId: string, limit: number, offset: number): Promise<DocumentRecord[]> {
    return (
      prepared(this.db, `SELECT * FROM documents WHERE bank_id = ? AND ${DOCUMENT_NOT_PURGING} ORDER BY rowid LIMIT ? OFFSET ?`).all(
        bankId,
        limit,
        offset,
      ) as Row[]
    ).map(toDocument);
  }
  async listLinks(bankId: string, limit: number, offset: number): Promise<FactLink[]> {
    const rows = prepared(
      this.db,
      'SELECT from_id AS "from", to_id AS "to", type, weight FROM fact_links WHERE bank_id = ? ORDER BY rowid LIMIT ? OFFSET ?',
    ).all(bankId, limit, offset) as Array<Omit<FactLink, 'bankId'>>;
    return rows.map((r) => ({ bankId, ...r }));
  }
  async writeItem(w: ItemWrite): Promise<void> {
    await this.writeItems([w]);
  }
  async writeItems(ws: ItemWrite[]): Promise<void> {
    writes.writeItems(this.db, ws);
    for (const w of ws) this.refreshStatistics(w.facts.length + w.chunks.length);
    // A long retain writes batch after batch: between two, the reader thread copies a long log while this one waits.
    await this.checkpoints?.catchUp();
  }
  async deleteDocument(bankId: string, documentId: string, reason: string): Promise<DeleteResult | null> {
    return deletes.deleteDocument(this.db, bankId, documentId, reason, this.purgePace);
  }
  async deleteFacts(bankId: string, factIds: string[], reason: string): Promise<DeleteResult> {
    return deletes.deleteFacts(this.db, bankId, factIds, reason);
  }

  // facts and entities
  async getFacts(bankId: string, ids: string[]): Promise<Fact[]> {
    return this.byIds<Fact, unknown[]>(`SELECT ${FACT_COLUMNS} FROM facts f WHERE +f.bank_id = ? AND f.id IN`, bankId, ids, toFact, 'raw');
  }
  async factFacets(bankId: string, ids: string[], entities: boolean): Promise<FactFacets[]> {
    return this.byIds<FactFacets, unknown[]>(
      `SELECT ${factFacetColumns(entities)} FROM facts f WHERE +f.bank_id = ? AND f.id IN`,
      bankId,
      ids,
      toFactFacets,
      'raw',
    );
  }
  async countActiveFacts(bankId: string): Promise<number> {
    return activeFactCount(this.db, bankId);
  }
  async listFacts(bankId: string, q: ListFactsQuery): Promise<FactPage> {
    const where = factFilterSql(q, 'f');
    let extra = '';
    const params: unknown[] = [];
    if (q.documentId) {
      extra += ' AND f.document_id = ?';
      params.push(q.documentId);
    }
    if (q.entityId) {
      extra += ' AND EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.fact_id = f.id AND fe.entity_id = ?)';
      params.push(q.entityId);
    }
    if (q.session !== undefined) {
      // Through facts_by_session (bank, session): the partial index needs the IS NOT NULL spelled out.
      extra += ' AND f.session = ? AND f.session IS NOT NULL';
      params.push(q.session);
    }
    const base = `FROM facts f WHERE f.bank_id = ? ${where.sql} ${extra}`;
    const total = (prepared(this.db, `SELECT count(*) AS n ${base}`).get(bankId, ...where.params, ...params) as { n: number }).n;
    const rows = prepared(this.db, `SELECT ${FACT_COLUMNS} ${base} ORDER BY f.rid LIMIT ? OFFSET ?`)
      .raw()
      .all(bankId, ...where.params, ...params, q.limit, q.offset) as unknown[][];
    return { facts: rows.map(toFact), total };
  }
  async newestFacts(bankId: string, q: FactFilter & { entityId?: string; limit: number }): Promise<Fact[]> {
    const where = factFilterSql(q, 'f');
    const rare = q.entityId ? this.newestOfRareKind(bankId, q as FactFilter & { entityId: string; limit: number }, where) : null;
    if (rare) return rare;
    // Fact ids begin with their creation time (core/ids.ts): an entity's index walked backwards by id is newest first.
    const rows = q.entityId
      ? prepared(
          this.db,
          `SELECT ${FACT_COLUMNS} FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id
           WHERE fe.entity_id = ? AND f.bank_id = ? ${where.sql} ORDER BY fe.fact_id DESC LIMIT ?`,
        )
          .raw()
          .all(q.entityId, bankId, ...where.params, q.limit)
      : prepared(this.db, `SELECT ${FACT_COLUMNS} FROM facts f WHERE f.bank_id = ? ${where.sql} ORDER BY f.rid DESC LIMIT ?`)
          .raw()
          .all(bankId, ...where.params, q.limit);
    return (rows as unknown[][]).map(toFact);
  }
  /**
   * An entity's newest facts of one kind, found from the kind's side: the bank's newest KIND_WINDOW active facts of
   * that kind (index facts_by_bank_kind, newest first), kept when they mention the entity. Walking the entity's own
   * facts instead costs as many rows as it has facts of other kinds before `limit` of this one (a hub entity's
   * 190k world facts to find its few observations took seconds a batch at 1M facts). The answer is exact when the
   * window holds `limit` matches (every fact outside it is older) or the whole kind; null otherwise (walk the entity).
   */
  private newestOfRareKind(
    bankId: string,
    q: FactFilter & { entityId: string; limit: number },
    where: { sql: string; params: unknown[] },
  ): Fact[] | null {
    if (q.kinds?.length !== 1 || q.includeSuperseded || q.recordedBefore) return null;
    const newestOfKind = `SELECT rid FROM facts WHERE bank_id = ? AND kind = ? AND status = 'active' ORDER BY rid DESC`;
    const inKind = prepared(this.db, `SELECT count(*) FROM (${newestOfKind} LIMIT ${KIND_WINDOW + 1})`)
      .pluck()
      .get(bankId, q.kinds[0]) as number;
    const exhausted = inKind <= KIND_WINDOW;
    const rows = prepared(
      this.db,
      `SELECT ${FACT_COLUMNS} FROM (${newestOfKind} LIMIT ${KIND_WINDOW}) w JOIN facts f ON f.rid = w.rid
       WHERE f.bank_id = ? ${where.sql} AND EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.fact_id = f.id AND fe.entity_id = ?)
       ORDER BY f.id DESC LIMIT ?`,
    )
      .raw()
      .all(bankId, q.kinds[0], bankId, ...where.params, q.entityId, q.limit) as unknown[][];
    return rows.length >= q.limit || exhausted ? rows.map(toFact) : null;
  }
  async factsInTimeRange(bankId: string, start: string, end: string, limit: number, filter: FactFilter = {}): Promise<FactFacets[]> {
    const where = factFilterSql(filter, 'f');
    const mid = new Date((Date.parse(start) + Date.parse(end)) / 2).toISOString();
    const lookBack = new Date(Date.parse(start) - TIME_RANGE_LOOK_BACK_MS).toISOString();
    // Nearest to the middle first, as four index walks outward from it, each stopping after `limit` rows: facts with an
    // occurred time (those starting before the range, up to a bounded look-back, when they reach into it), and facts
    // without one by their mention time. Reads O(limit) rows however many facts the range holds.
    type Hit = { rid: number; at: string };
    const walk = (sql: string, order: 'ASC' | 'DESC', column: string, ...params: unknown[]): Hit[] =>
      prepared(
        this.db,
        `SELECT f.rid AS rid, coalesce(f.occurred_start, f.mentioned_at) AS at FROM facts f
           WHERE f.bank_id = ? AND ${sql} ${where.sql} ORDER BY f.${column} ${order} LIMIT ?`,
      ).all(bankId, ...params, ...where.params, limit) as Hit[];
    const middle = Date.parse(mid);
    const nearest = [
      ...walk(
        'f.occurred_start >= ? AND f.occurred_start <= ? AND coalesce(+f.occurred_end, +f.occurred_start) >= ?',
        'DESC',
        'occurred_start',
        lookBack,
        mid,
        start,
      ),
      ...walk('f.occurred_start > ? AND f.occurred_start <= ?', 'ASC', 'occurred_start', mid, end),
      ...walk('f.mentioned_at >= ? AND f.mentioned_at <= ? AND +f.occurred_start IS NULL', 'DESC', 'mentioned_at', start, mid),
      ...walk('f.mentioned_at > ? AND f.mentioned_at <= ? AND +f.occurred_start IS NULL', 'ASC', 'mentioned_at', mid, end),
    ]
      .map((h) => ({ rid: h.rid, distance: Math.abs(Date.parse(h.at) - middle) }))
      .sort((x, y) => x.distance - y.distance)
      .slice(0, limit);
    if (nearest.length === 0) return [];
    const rank = new Map(nearest.map((h, i) => [h.rid, i]));
    // Their facets: the temporal arm reads times and filters; a whole fact (text, metadata) cost twice as much a row.
    const rows = [...inLists(nearest.map((h) => h.rid))].flatMap(
      (list) =>
        prepared(this.db, `SELECT f.rid, ${factFacetColumns(false)} FROM facts f WHERE f.rid IN (${list.marks})`)
          .raw()
          .all(...list.values) as unknown[][],
    );
    return rows.sort((x, y) => (rank.get(Number(x[0])) ?? 0) - (rank.get(Number(y[0])) ?? 0)).map((r) => toFactFacets(r.slice(1)));
  }
  async sessions(bankId: string): Promise<SessionInfo[]> {
    return this.sessionsOf.list(bankId);
  }
  async factsOfSessions(bankId: string, sessionIds: string[], limitPerSession: number, filter: FactFilter = {}): Promise<Fact[]> {
    return this.sessionsOf.factsOf(bankId, sessionIds, limitPerSession, filter);
  }
  /** Facts extracted from the given chunks (under the filter), for the keyword arm's chunk-to-fact flow. */
  async factIdsOfChunks(bankId: string, chunkIds: string[], filter: FactFilter = {}): Promise<Array<{ factId: string; chunkId: string }>> {
    const where = factFilterSql(filter, 'f');
    const out: Array<{ factId: string; chunkId: string }> = [];
    for (const list of inLists(chunkIds)) {
      // `+f.bank_id`: look the chunks up through facts_by_chunk, never by scanning the bank.
      const rows = prepared(
        this.db,
        `SELECT f.id AS factId, f.chunk_id AS chunkId FROM facts f WHERE +f.bank_id = ? AND f.chunk_id IN (${list.marks}) ${where.sql}`,
      ).all(bankId, ...list.values, ...where.params) as Array<{ factId: string; chunkId: string }>;
      out.push(...rows);
    }
    return out;
  }
  async getEntities(bankId: string, ids: string[]): Promise<Entity[]> {
    return this.byIds<Entity>('SELECT * FROM entities WHERE bank_id = ? AND id IN', bankId, ids, toEntity);
  }
  async listEntities(bankId: string, limit: number, offset: number): Promise<Entity[]> {
    return (
      prepared(this.db, 'SELECT * FROM entities WHERE bank_id = ? ORDER BY mention_count DESC, id LIMIT ? OFFSET ?').all(
        bankId,
        limit,
        offset,
      ) as Row[]
    ).map(toEntity);
  }
  async entityGraph(bankId: string, entityIds: string[]): Promise<EntityEdge[]> {
    return coMentions(this.db, bankId, coMentionOrder(await this.getEntities(bankId, entityIds)));
  }
  async findEntities(bankId: string, keys: string[]): Promise<Entity[]> {
    return this.graph.entitiesByKeys(bankId, keys);
  }
  async getVectors(bankId: string, ids: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const list of inLists(ids)) {
      const rows = prepared(
        this.db,
        `SELECT f.id AS id, v.vector AS vector FROM facts f JOIN fact_vectors v ON v.fact_rid = f.rid WHERE +f.bank_id = ? AND f.id IN (${list.marks})`,
      ).all(bankId, ...list.values) as Array<{ id: string; vector: Buffer }>;
      for (const r of rows) out.set(r.id, decodeVector(r.vector));
    }
    return out;
  }
  async resetEmbedder(bankId: string, embedder: string | null): Promise<void> {
    this.db
      .transaction(() => {
        prepared(this.db, 'DELETE FROM fact_vectors WHERE bank_id = ?').run(bankId);
        prepared(this.db, 'UPDATE banks SET embedder = ? WHERE id = ?').run(embedder, bankId);
      })
      .immediate();
  }
  async putVectors(bankId: string, embedder: string, vectors: VectorRecord[]): Promise<void> {
    this.db
      .transaction(() => {
        writes.checkEmbedder(this.db, bankId, embedder);
        writes.putVectors(this.db, bankId, vectors);
      })
      .immediate();
  }

  // consolidation queue
  async claimUnconsolidated(bankId: string, workerId: string, limit: number, leaseMs: number): Promise<Claim | null> {
    return queue.claim(this.db, bankId, workerId, limit, leaseMs);
  }
  async applyObservations(w: ObservationWrite): Promise<void> {
    queue.applyObservations(this.db, w);
  }
  async failClaim(
    bankId: string,
    workerId: string,
    factIds: string[],
    error: string,
    maxAttempts: number,
    retryAfterMs: number,
  ): Promise<void> {
    queue.failClaim(this.db, bankId, workerId, factIds, error, maxAttempts, retryAfterMs);
  }
  async listDeadLetters(bankId: string): Promise<DeadLetter[]> {
    return queue.deadLetters(this.db, bankId);
  }
  async retryDeadLetters(bankId: string, factIds?: string[]): Promise<number> {
    return queue.retryDead(this.db, bankId, factIds);
  }
  async hasWaiting(bankId: string): Promise<boolean> {
    return queue.hasWaiting(this.db, bankId);
  }
  async backlog(bankId: string): Promise<{ waiting: number; oldestWaitingAt: string | null; failed: number; consolidated: number }> {
    return queue.backlog(this.db, bankId);
  }
  async banksWithBacklog(): Promise<string[]> {
    return queue.banksWithBacklog(this.db);
  }
  async queueDetail(bankId: string): Promise<QueueDetail> {
    return queue.queueDetail(this.db, bankId);
  }

  // liveness
  async beat(heartbeat: Heartbeat): Promise<void> {
    queue.beat(this.db, heartbeat);
  }
  async heartbeats(): Promise<Heartbeat[]> {
    return queue.heartbeats(this.db);
  }
  async retireHeartbeat(id: string, beatAt: string | null): Promise<boolean> {
    return queue.retireHeartbeat(this.db, id, beatAt);
  }

  // write leases
  async takeWriteLease(lease: WriteLease, takeOver: string | null = null): Promise<WriteLease> {
    return leases.takeWriteLease(this.db, lease, takeOver, new Date().toISOString());
  }
  async releaseWriteLease(bankId: string, holder: string): Promise<void> {
    leases.releaseWriteLease(this.db, bankId, holder);
  }

  // observations and audit
  async getObservations(bankId: string, ids: string[]): Promise<Observation[]> {
    const facts = await this.getFacts(bankId, ids);
    const count = prepared(this.db, `SELECT count(*) AS n FROM evidence WHERE observation_id = ? AND role = 'supports'`);
    return facts
      .filter((f) => f.kind === 'observation')
      .map((f) => ({ ...f, kind: 'observation' as const, proofCount: (count.get(f.id) as { n: number }).n }));
  }
  async evidenceOf(bankId: string, observationId: string): Promise<Evidence[]> {
    return this.evidence('observation_id', bankId, observationId);
  }
  async observationsOfFact(bankId: string, factId: string): Promise<Evidence[]> {
    return this.evidence('fact_id', bankId, factId);
  }
  private evidence(column: 'observation_id' | 'fact_id', bankId: string, id: string): Evidence[] {
    const rows = prepared(
      this.db,
      `SELECT observation_id, fact_id, role, created_at FROM evidence WHERE bank_id = ? AND ${column} = ? ORDER BY created_at`,
    ).all(bankId, id) as Array<{ observation_id: string; fact_id: string; role: Evidence['role']; created_at: string }>;
    return rows.map((r) => ({ observationId: r.observation_id, factId: r.fact_id, role: r.role, createdAt: r.created_at }));
  }
  async historyOf(bankId: string, observationId: string): Promise<ObservationRevision[]> {
    const rows = prepared(this.db, 'SELECT * FROM observation_revisions WHERE bank_id = ? AND observation_id = ? ORDER BY at, rowid').all(
      bankId,
      observationId,
    ) as Row[];
    return rows.map((r) => ({
      id: String(r.id),
      observationId: String(r.observation_id),
      oldText: r.old_text === null ? null : String(r.old_text),
      newText: String(r.new_text),
      factIds: parseJson(r.fact_ids, []),
      reason: String(r.reason) as ObservationRevision['reason'],
      at: String(r.at),
    }));
  }
  async tombstones(bankId: string, limit: number, offset = 0): Promise<Tombstone[]> {
    const rows = prepared(this.db, 'SELECT * FROM tombstones WHERE bank_id = ? ORDER BY at DESC, id DESC LIMIT ? OFFSET ?').all(
      bankId,
      limit,
      offset,
    ) as Row[];
    return rows.map(toTombstone);
  }
  async tombstoneOf(bankId: string, targetId: string, kinds: TombstoneTarget[]): Promise<Tombstone | null> {
    if (!kinds.length) return null;
    const row = prepared(
      this.db,
      `SELECT * FROM tombstones WHERE bank_id = ? AND target_id = ? AND kind IN (${placeholders(kinds.length)}) ORDER BY at DESC, id DESC LIMIT 1`,
    ).get(bankId, targetId, ...kinds) as Row | undefined;
    return row ? toTombstone(row) : null;
  }
  async restoreTombstones(tombstones: Tombstone[]): Promise<void> {
    const insert = prepared(this.db, 'INSERT INTO tombstones (id, bank_id, kind, target_id, reason, at) VALUES (?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const t of tombstones) insert.run(t.id, t.bankId, t.kind, t.targetId, t.reason, t.at);
    })();
  }

  // operations
  async createOperation(op: Operation): Promise<void> {
    ops.insertOperation(this.db, op);
  }
  async updateOperation(op: Operation, from?: OperationStatus[]): Promise<boolean> {
    return ops.updateOperation(this.db, op, from);
  }
  async adoptOperation(id: string, from: string | null, to: string): Promise<boolean> {
    return ops.adoptOperation(this.db, id, from, to);
  }
  async getOperation(id: string): Promise<Operation | null> {
    const r = prepared(this.db, 'SELECT * FROM operations WHERE id = ?').get(id) as Row | undefined;
    return r ? toOperation(r) : null;
  }
  async listOperations(bankId: string, query: OperationListQuery): Promise<Operation[]> {
    return ops.listOperations(this.db, bankId, query);
  }
  async unfinishedOperations(): Promise<Operation[]> {
    return (prepared(this.db, `SELECT * FROM operations WHERE status IN ('queued', 'running') ORDER BY created_at`).all() as Row[]).map(
      toOperation,
    );
  }
  async retainsNaming(bankId: string, documentId: string): Promise<string[]> {
    return ops.retainsNaming(this.db, bankId, documentId);
  }
  async operationByKey(bankId: string, key: string): Promise<Operation | null> {
    return ops.keyed(this.db, bankId, key)?.operation ?? null;
  }
  async operationsByKey(key: string): Promise<Operation[]> {
    return (
      prepared(
        this.db,
        'SELECT o.* FROM operation_keys k JOIN operations o ON o.id = k.operation_id WHERE k.key = ? ORDER BY o.created_at',
      ).all(key) as Row[]
    ).map(toOperation);
  }
  async bindOperationKey(bankId: string, key: string, payloadHash: string, op: Operation): Promise<KeyedOperation & { created: boolean }> {
    return ops.bindKey(this.db, bankId, key, payloadHash, op);
  }

  /** After enough rows were written, lets SQLite re-analyze the tables that grew (about a millisecond when none did). */
  private refreshStatistics(rows: number): void {
    this.rowsSinceOptimize += rows;
    if (this.rowsSinceOptimize < OPTIMIZE_EVERY_ROWS) return;
    this.rowsSinceOptimize = 0;
    this.db.pragma('optimize');
  }

  /** Records by id, in the order asked for; rows read as objects, or as arrays ('raw', for wide rows). */
  private byIds<T extends { id: string }, R = Row>(
    sqlPrefix: string,
    bankId: string,
    ids: string[],
    map: (r: R) => T,
    mode: 'object' | 'raw' = 'object',
  ): T[] {
    const out: T[] = [];
    for (const list of inLists(ids)) {
      const statement = prepared(this.db, `${sqlPrefix} (${list.marks})`);
      const rows = (mode === 'raw' ? statement.raw() : statement).all(bankId, ...list.values) as R[];
      for (const r of rows) out.push(map(r));
    }
    const order = new Map(ids.map((id, i) => [id, i]));
    return out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  }
}
