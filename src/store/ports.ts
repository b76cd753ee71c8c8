// The storage ports the engine talks to. Adapters (store/sqlite, store/neo4j, store/qdrant) implement them;
// domain modules (retain, consolidate, recall, reflect, threads) import only this file.
import type {
  Bank,
  Chunk,
  DocumentRecord,
  Entity,
  Evidence,
  Fact,
  FactKind,
  FactLink,
  LinkType,
  Observation,
  ObservationRevision,
  Operation,
  OperationStatus,
  Stance,
} from '../core/index.ts';
import { CairnError, notFoundOrDeleted } from '../core/index.ts';

export interface Scored {
  id: string;
  score: number;
}

/** Filters shared by every recall-side query. */
export interface FactFilter {
  kinds?: FactKind[];
  /** Facts must carry every one of these tags. */
  tags?: string[];
  /** Include superseded facts (default: only active ones). */
  includeSuperseded?: boolean;
  /** Only facts recorded at or before this instant (ISO), for asOf queries. */
  recordedBefore?: string;
  /** Only standing instructions or preferences of these kinds (the fact's stance, read at retain). */
  stances?: Stance[];
  /**
   * Occurred time (canonical ISO, both bounds inclusive): only facts whose occurred interval [occurredStart,
   * occurredEnd ?? occurredStart] overlaps [occurredFrom, occurredTo]. Facts with no occurredStart (the text gave no
   * time) are left out as soon as either bound is given.
   */
  occurredFrom?: string;
  occurredTo?: string;
  /** Valid time (canonical ISO): only facts that held at this instant, validFrom <= t < validTo (a null end is open). */
  validAt?: string;
}

/** The fields of a fact that filters and the arms' scoring read: a narrow row, so an arm that only filters and scores
 * hundreds of reached facts does not read their texts, spans and metadata. `entities` only when asked for. */
export type FactFacets = Pick<
  Fact,
  | 'id'
  | 'kind'
  | 'tags'
  | 'stance'
  | 'status'
  | 'occurredStart'
  | 'occurredEnd'
  | 'mentionedAt'
  | 'validFrom'
  | 'validTo'
  | 'createdAt'
  | 'supersededAt'
> & { source: Pick<NonNullable<Fact['source']>, 'chunkId' | 'documentId' | 'start'> | null; entities?: string[] };

/**
 * A session of a bank: the chunks that share a session name (a retained document, or the items retained with one
 * `session`). Ordinals follow time: the earliest timestamp of its items, ties by the one retained first.
 */
export interface SessionInfo {
  id: string;
  /** 1 for the earliest session of the bank. */
  ordinal: number;
  /** Earliest and latest timestamp of its items (null when none carries one). */
  start: string | null;
  end: string | null;
}

export interface VectorRecord {
  id: string;
  vector: Float32Array;
}

/** k-NN over fact vectors, one space per bank. */
export interface VectorIndex {
  search(bankId: string, vector: Float32Array, k: number, filter?: FactFilter): Promise<Scored[]>;
  /** search() for each vector with one k and filter, answers in order (a write links each of its facts); with
   * `minScore`, only hits scoring at least that (a write links only near copies, and most facts have none). */
  searchMany(bankId: string, vectors: Float32Array[], k: number, filter?: FactFilter, minScore?: number): Promise<Scored[][]>;
}

/** BM25 over fact texts (and over chunk texts, whose score the keyword arm spreads to their facts). */
/** A keyword match: with the fact's text when the search was asked for texts (every hit then has it). */
export interface KeywordHit extends Scored {
  text?: string;
}

/** A chunk's keyword match, with the document it belongs to (a ranking step needs nothing else of a hundred passages,
 * each of which may hold a long message). */
export interface ChunkHit extends Scored {
  documentId: string;
}

export interface KeywordSearchOptions {
  /** Each hit with its fact's text (what a caller re-scoring the hits by their words would read next: for a ranking
   * step that reads nothing else of hundreds of candidates, a fraction of what reading them whole costs). */
  texts?: boolean;
}

export interface KeywordIndex {
  searchFacts(bankId: string, query: string, k: number, filter?: FactFilter, options?: KeywordSearchOptions): Promise<KeywordHit[]>;
  searchChunks(bankId: string, query: string, k: number): Promise<ChunkHit[]>;
}

/** Which links linksOf reads. */
export interface LinkQuery {
  types?: readonly LinkType[];
  limitPerFact?: number;
}

/** The entity graph: entities, their facts, and fact-fact links. */
export interface GraphIndex {
  /** Entities whose canonical name or an alias equals one of the normalized keys. */
  entitiesByKeys(bankId: string, keys: string[]): Promise<Entity[]>;
  /** Facts that mention any of the entities, with the entity they were reached from. */
  factsOfEntities(bankId: string, entityIds: string[], limitPerEntity: number): Promise<Array<{ factId: string; entityId: string }>>;
  /** Which of the facts mention which of the entities: a pair per mention, ordered by fact id, then entity id. */
  mentionsOf(bankId: string, factIds: string[], entityIds: string[]): Promise<Array<{ factId: string; entityId: string }>>;
  /** Fact-fact links touching any of the facts, of the types asked for (default all); with `limitPerFact`, each
   * fact's strongest that many (a fact many others resemble can hold thousands of links: reading them all made one
   * recall cost a hundred milliseconds). */
  linksOf(bankId: string, factIds: string[], options?: LinkQuery): Promise<FactLink[]>;
}

/** Everything a retained item writes, applied atomically: all of it or none of it. */
export interface ItemWrite {
  bankId: string;
  document: DocumentRecord;
  /** New or changed chunks of the document. */
  chunks: Chunk[];
  /** Chunks of an earlier version that are gone or changed: their facts, vectors, keyword entries and links go. */
  removeChunkIds: string[];
  /**
   * A later part of a long item whose earlier parts this retain wrote: the document must still be stored. When it is
   * not (deleted meanwhile) the write is refused (conflict) instead of bringing back a document missing its start.
   */
  continues?: boolean;
  facts: Fact[];
  /** New entities, and existing ones with updated aliases, counts and times. */
  entities: Entity[];
  links: FactLink[];
  vectors: VectorRecord[];
  /** Embedder id of the vectors; the bank takes it on its first write and refuses another later. */
  embedder: string;
  /**
   * The operation this write is part of, with its progress and result as they stand once the write is in: recorded
   * in the transaction that makes the write visible, so a resumed operation knows exactly what was written. The
   * write is refused (conflict) when the stored operation is no longer running (a bank deletion failed it).
   */
  operation?: Operation;
}

/** An operation bound to an idempotency key, with the hash of the payload it was bound for (null: not recorded). */
export interface KeyedOperation {
  operation: Operation;
  payloadHash: string | null;
}

export interface FactPage {
  facts: Fact[];
  total: number;
}

export interface ListFactsQuery extends FactFilter {
  limit: number;
  offset: number;
  documentId?: string;
  entityId?: string;
  /** Only facts whose source item belongs to this session (observations, having no source, never do). */
  session?: string;
}

/** Two entities mentioned together: `weight` active facts mention both (`source` < `target`). */
export interface EntityEdge {
  source: string;
  target: string;
  weight: number;
}

/** Which of a bank's operations listOperations reads. */
export interface OperationListQuery {
  limit: number;
  offset: number;
  status?: OperationStatus;
}

/**
 * A process that holds work in the store (consolidation claims, running operations) says it is alive: it beats
 * every few seconds, each beat holding until `aliveUntil`. Work whose holder stopped beating is taken over.
 */
export interface Heartbeat {
  id: string;
  /** What the holder does ('worker': a consolidation loop; 'drain': consolidation asked for through the API; 'operations'). */
  role: string;
  host: string;
  pid: number;
  /** When the holder's process started: a newer process that reuses the pid on the same host is told apart. */
  startedAt: string;
  beatAt: string;
  aliveUntil: string;
}

/** Why a bank's waiting facts wait. */
export interface QueueDetail {
  /** Waiting facts a worker may claim now: unclaimed (or their claim lapsed) and not waiting for a retry. */
  ready: number;
  /** Waiting facts held under a claim, per holder, with the latest end of its lease. */
  claims: Array<{ workerId: string; facts: number; leaseUntil: string }>;
  /** Waiting facts that failed and wait for their next attempt (unclaimed). */
  retrying: { facts: number; nextAttemptAt: string | null; lastError: string | null };
}

/** Consolidation work claimed by one worker under a lease. */
export interface Claim {
  workerId: string;
  factIds: string[];
  leaseUntil: string;
}

export interface DeadLetter {
  factId: string;
  bankId: string;
  error: string;
  attempts: number;
  failedAt: string;
}

export interface ObservationWrite {
  bankId: string;
  /** New or revised observations (with vectors for recall). */
  observations: Observation[];
  vectors: VectorRecord[];
  embedder: string;
  evidence: Evidence[];
  revisions: ObservationRevision[];
  /**
   * Facts superseded by newer facts in this step: `at` is the record time they stopped being believed,
   * `validTo` (default `at`) the valid time they stopped being true (when the newer fact became true).
   */
  supersede: Array<{ factId: string; by: string; at: string; validTo?: string }>;
  /** Observations removed (no evidence left). */
  removeObservationIds: string[];
  /** Facts this step consolidated (their claim is released and they leave the queue). */
  consolidatedFactIds: string[];
  workerId: string;
  /**
   * Optimistic concurrency: observations revised from what was read must still have this updatedAt, else the
   * whole write fails with a conflict (a deletion or another writer changed them meanwhile) and is redone.
   */
  expectUnchanged?: Array<{ id: string; updatedAt: string }>;
}

/** The refusal of a later part of a long item whose document was deleted while it was being retained. */
export const deletedWhileRetained = (documentId: string): CairnError =>
  new CairnError(
    'conflict',
    `document '${documentId}' was deleted while it was being retained: the rest of it is not written (retain it again to store it)`,
  );

/** The bank, or a 404 that says when it was deleted (from its tombstone, where the store keeps them) or that it does
 * not exist: the engine's and thread memory's lookup. */
export async function requireBankIn(
  banks: Pick<BankStore, 'getBank'> & Partial<Pick<AuditReads, 'tombstoneOf'>>,
  bankId: string,
): Promise<Bank> {
  const bank = await banks.getBank(bankId);
  if (!bank) throw notFoundOrDeleted('bank', bankId, (await banks.tombstoneOf?.(bankId, bankId, ['bank'])) ?? null);
  return bank;
}

/** The reason a bank's tombstone gives when its deletion gave none. */
export const BANK_DELETED = 'bank deleted';

/** What deletion leaves in observations (and their history) that quoted deleted facts, until they are rebuilt. */
export const FORGOTTEN_TEXT = '[forgotten]';

/** The reason a fact is tombstoned for when its chunk changed as its document was retained again. */
export const replacedWithDocument = (documentId: string): string =>
  `its part of document '${documentId}' changed when the document was retained again`;

/** The reason a fact deleted with its document is tombstoned for: the document's, naming the document, so asking for
 * the fact afterwards says where it went rather than that it never existed. */
export const withDocument = (reason: string, documentId: string): string => `${reason} (with document '${documentId}')`;

export interface DeleteResult {
  factIds: string[];
  /** Observations that cited a deleted fact and must be revised (or removed when nothing supports them). */
  observationIds: string[];
}

/** What a tombstone can be asked for by id (a deleted bank's by the bank's id). */
export type TombstoneTarget = Tombstone['kind'];

/** What a tombstone can stand for. */
export const TOMBSTONE_KINDS = ['fact', 'document', 'bank', 'observation', 'thread'] as const;

export interface Tombstone {
  id: string;
  bankId: string;
  kind: (typeof TOMBSTONE_KINDS)[number];
  targetId: string;
  reason: string;
  at: string;
}

/**
 * A bank's write lease: the one holder that may write retained items into the bank until `until`. Entity
 * resolution reads what the previous retain wrote, so two writers at once (two API processes, two threads) would
 * resolve one name to two entities. The holder's process is described as in a Heartbeat, so a process on the same
 * host can tell at once that it died.
 */
export interface WriteLease {
  bankId: string;
  holder: string;
  host: string;
  pid: number;
  startedAt: string;
  until: string;
}

/** The role that hands out write leases (one holder per bank at a time, across processes). */
export interface WriteLeases {
  /**
   * Takes the bank's write lease for `lease.holder` until `lease.until`, or renews it: when nobody holds it, its
   * holder's lease ended, it is `lease.holder`'s already, or it is `takeOver`'s (a holder the caller found dead).
   * Returns the lease the bank has afterwards: `lease` when taken, the other holder's when not.
   */
  takeWriteLease(lease: WriteLease, takeOver?: string | null): Promise<WriteLease>;
  /** Gives the lease up, if `holder` still holds it. */
  releaseWriteLease(bankId: string, holder: string): Promise<void>;
}

/*
 * The store's roles. Each domain module takes the roles it calls and no more (retain: MemoryWrites & RecallReads;
 * recall: RecallStore in recall/types.ts; ...), so a signature says what a module may read and write. A method
 * belongs to one role, the one that owns its concern; a caller that needs two concerns takes both roles.
 */

/** Banks: their records, created, read, changed and deleted with everything of theirs. */
export interface BankStore {
  /** Refuses (400) an id outside the one bank id rule (core/ids.ts). */
  createBank(bank: Bank): Promise<void>;
  getBank(id: string): Promise<Bank | null>;
  listBanks(): Promise<Bank[]>;
  updateBank(bank: Bank): Promise<void>;
  /**
   * Removes the bank and everything of it from every index. Its finished operations go; its unfinished ones are
   * failed ("bank '<id>' was deleted ...") and kept without their input, so whoever polls them learns why. Its
   * tombstone keeps the reason (default BANK_DELETED). `hidden` is called once the bank is gone for every reader and
   * writer (a store that removes a large bank's rows step by step does so after its first step).
   */
  deleteBank(id: string, reason?: string, options?: { hidden?: () => void }): Promise<void>;
}

/**
 * Keyword indexes of banks that no longer exist, for reconcile. Both methods are optional: a store that drops a
 * bank's indexes with the bank, in one transaction (the embedded one), never has orphans and implements neither.
 */
export interface OrphanIndexes {
  /**
   * Keyword indexes of banks that no longer exist, by name: a store whose bank deletion drops them outside the
   * bank's transaction leaves them when it dies in between.
   */
  orphanKeywordIndexes?(): Promise<string[]>;
  /** Drops those of the named indexes that are still orphans (never a live bank's); returns the names dropped. */
  dropOrphanKeywordIndexes?(names: string[]): Promise<string[]>;
}

/** What retain writes: items applied atomically, and the entities new mentions resolve against. */
export interface MemoryWrites {
  /** Applies one item's write atomically. */
  writeItem(write: ItemWrite): Promise<void>;
  /** Applies several items' writes, in order, in one transaction (optional: without it each is written alone). */
  writeItems?(writes: ItemWrite[]): Promise<void>;
  /** Entities to resolve new mentions against (by normalized key). */
  findEntities(bankId: string, keys: string[]): Promise<Entity[]>;
}

/**
 * The reads of memory by what it holds: the vector, keyword and graph indexes, and facts, chunks, documents,
 * entities, sessions and time ranges by id or key. Recall, reflect and the provenance of a fact read through it; so
 * do retain (to plan a write and link it) and consolidation (to gather context).
 */
export interface RecallReads {
  readonly vectors: VectorIndex;
  readonly keywords: KeywordIndex;
  readonly graph: GraphIndex;

  getFacts(bankId: string, ids: string[]): Promise<Fact[]>;
  /** The facets of these facts (those that exist, whatever their status), in the order asked; with their entity ids
   * when `entities` is set. */
  factFacets(bankId: string, ids: string[], entities: boolean): Promise<FactFacets[]>;
  /** How many of the bank's facts are active (not superseded): the total of a listing without filters, but kept as
   * facts are written where the store can, so a large bank is not counted on every ask. 0 for an unknown bank. */
  countActiveFacts(bankId: string): Promise<number>;
  /**
   * The newest facts under the filter (of one entity when `entityId` is given), newest first, at most `limit`: read
   * from the newest end of an index, so a hub entity's hundred thousand facts are neither counted nor paged through.
   */
  newestFacts(bankId: string, query: FactFilter & { entityId?: string; limit: number }): Promise<Fact[]>;
  /** The facets of facts whose occurred (or, lacking that, mentioned) time overlaps [start, end], nearest first. */
  factsInTimeRange(bankId: string, start: string, end: string, limit: number, filter?: FactFilter): Promise<FactFacets[]>;
  /** The bank's sessions, ordinal 1 first, as what is stored now makes them (replaced and deleted documents included). */
  sessions(bankId: string): Promise<SessionInfo[]>;
  /** Facts of the named sessions (under the filter): at most `limitPerSession` of each, in the order they were told. */
  factsOfSessions(bankId: string, sessionIds: string[], limitPerSession: number, filter?: FactFilter): Promise<Fact[]>;
  /** Facts extracted from the given chunks (the keyword arm spreads chunk scores to them). */
  factIdsOfChunks(bankId: string, chunkIds: string[], filter?: FactFilter): Promise<Array<{ factId: string; chunkId: string }>>;
  getEntities(bankId: string, ids: string[]): Promise<Entity[]>;
  /** Vectors of the given facts (for MMR, semantic links, consolidation). */
  getVectors(bankId: string, ids: string[]): Promise<Map<string, Float32Array>>;
  getDocument(bankId: string, id: string): Promise<DocumentRecord | null>;
  listChunks(bankId: string, documentId: string): Promise<Chunk[]>;
  getChunks(bankId: string, ids: string[]): Promise<Chunk[]>;
}

/** The consolidation queue (the facts' own state), dead letters, and applying what consolidation made of them. */
export interface ConsolidationQueue {
  /**
   * Claims up to `limit` waiting facts of the bank, oldest first, under a lease. Null when none is waiting, or while
   * another worker holds a live lease in the bank (one worker per bank at a time keeps consolidation in order). A
   * claim lapses when its lease ends or when its holder's heartbeat has (a holder that never beat has only its lease).
   */
  claimUnconsolidated(bankId: string, workerId: string, limit: number, leaseMs: number): Promise<Claim | null>;
  applyObservations(write: ObservationWrite): Promise<void>;
  /** Records a failed attempt; after maxAttempts the fact goes to the dead-letter list. */
  failClaim(bankId: string, workerId: string, factIds: string[], error: string, maxAttempts: number, retryAfterMs: number): Promise<void>;
  listDeadLetters(bankId: string): Promise<DeadLetter[]>;
  retryDeadLetters(bankId: string, factIds?: string[]): Promise<number>;
  backlog(bankId: string): Promise<{ waiting: number; oldestWaitingAt: string | null; failed: number; consolidated: number }>;
  /** Whether any fact of the bank waits for consolidation (recall asks on every query: cheaper than counting). */
  hasWaiting(bankId: string): Promise<boolean>;
  banksWithBacklog(): Promise<string[]>;
  /** Who holds the bank's waiting facts, and which wait for a retry (for the status). */
  queueDetail(bankId: string): Promise<QueueDetail>;
}

/** Liveness of the processes holding claims and operations. */
export interface Heartbeats {
  /** Records a beat (creates or replaces the holder's heartbeat). */
  beat(heartbeat: Heartbeat): Promise<void>;
  heartbeats(): Promise<Heartbeat[]>;
  /**
   * Forgets a holder that stopped or died and releases its claims, unless it beat after `beatAt` (null: whatever its
   * last beat). Returns whether it was forgotten.
   */
  retireHeartbeat(id: string, beatAt: string | null): Promise<boolean>;
}

/**
 * What audit, export and the listing endpoints read: observations with their evidence and history, tombstones, and
 * pages of facts, entities, documents and links.
 */
export interface AuditReads {
  getObservations(bankId: string, ids: string[]): Promise<Observation[]>;
  evidenceOf(bankId: string, observationId: string): Promise<Evidence[]>;
  observationsOfFact(bankId: string, factId: string): Promise<Evidence[]>;
  historyOf(bankId: string, observationId: string): Promise<ObservationRevision[]>;
  /** The bank's tombstones, newest first (ties by id), a page at a time. */
  tombstones(bankId: string, limit: number, offset?: number): Promise<Tombstone[]>;
  /** The newest tombstone left by deleting this fact, observation or document as one of these kinds (null: never
   * deleted as such; a document's tombstone is no answer for a fact of the same id). */
  tombstoneOf(bankId: string, targetId: string, kinds: TombstoneTarget[]): Promise<Tombstone | null>;
  listFacts(bankId: string, query: ListFactsQuery): Promise<FactPage>;
  listEntities(bankId: string, limit: number, offset: number): Promise<Entity[]>;
  /**
   * The co-mentions among the given entities of the bank: one edge per pair that active facts mention together,
   * weighted by how many do. Reads only the facts of the given entities (never those of the one with the most
   * mentions: every pair it is in is found from the other side), so a bounded set of entities stays a bounded read
   * however large the bank. Ids of other banks' (or no) entities are ignored.
   */
  entityGraph(bankId: string, entityIds: string[]): Promise<EntityEdge[]>;
  /** Documents of the bank in the order they were first written, a page at a time (for export). */
  listDocuments(bankId: string, limit: number, offset: number): Promise<DocumentRecord[]>;
  /** Fact-fact links of the bank as stored (direction kept), a page at a time (for export). */
  listLinks(bankId: string, limit: number, offset: number): Promise<FactLink[]>;
}

/** Deletion of documents and facts through every index, and the tombstones it leaves. */
export interface Forgetting {
  /** Deletes a document and, through every index, all facts that came from it. Null when there is no such document. */
  deleteDocument(bankId: string, documentId: string, reason: string): Promise<DeleteResult | null>;
  /** Deletes facts (or observations) through every index and evidence link. */
  deleteFacts(bankId: string, factIds: string[], reason: string): Promise<DeleteResult>;
  /** Stores tombstones as they were exported (the import of a bank). */
  restoreTombstones(tombstones: Tombstone[]): Promise<void>;
}

/** Async operations, who holds them, and the idempotency keys bound to them. */
export interface OperationStore {
  createOperation(op: Operation): Promise<void>;
  /**
   * Writes the operation's status, progress, result and error; with `from`, only while its stored status is one of
   * them (a bank deletion that failed it wins over a late update); when `op.owner` is given, only while that process
   * still holds it (once another took it over, the old holder's writes are refused). False when nothing was written.
   */
  updateOperation(op: Operation, from?: OperationStatus[]): Promise<boolean>;
  /** Takes an unfinished operation over from `from` (null: no holder); false when it finished or another process took it first. */
  adoptOperation(id: string, from: string | null, to: string): Promise<boolean>;
  getOperation(id: string): Promise<Operation | null>;
  /**
   * The bank's operations, newest first (by createdAt, ties by id), a page at a time, of one status when given.
   * Read without their input (null here: a retain's can be megabytes; getOperation has it).
   */
  listOperations(bankId: string, query: OperationListQuery): Promise<Operation[]>;
  /** Operations queued or running (with their holder: those of a dead holder are resumed by another process). */
  unfinishedOperations(): Promise<Operation[]>;
  /** The ids of the bank's queued or running retains whose stored input has an item of this documentId (oldest first),
   * found without reading the inputs out (a retain's can be megabytes). */
  retainsNaming(bankId: string, documentId: string): Promise<string[]>;
  /** Idempotency: the operation stored under this key for the bank, if any. */
  operationByKey(bankId: string, key: string): Promise<Operation | null>;
  /** The operations bound to this key, in any bank. */
  operationsByKey(key: string): Promise<Operation[]>;
  /**
   * Idempotency, in one atomic step: when the key of the bank is free, stores `op` and binds the key to it with the
   * payload hash (`created`). When it is bound, returns that binding instead and stores nothing, except that a key
   * bound to a failed operation is bound to `op` for a retry of the same payload (or an unrecorded one).
   */
  bindOperationKey(bankId: string, key: string, payloadHash: string, op: Operation): Promise<KeyedOperation & { created: boolean }>;
}

/** The store as a whole: its name, closing it, and replacing a bank's vectors when its embedder changes. */
export interface Maintenance {
  readonly name: string;
  close(): Promise<void>;
  /** Changes the embedder of a bank: drops all vectors so they can be re-embedded. */
  resetEmbedder(bankId: string, embedder: string | null): Promise<void>;
  /** Replaces vectors of existing facts (re-embed). */
  putVectors(bankId: string, embedder: string, vectors: VectorRecord[]): Promise<void>;
}

/**
 * The system of record: every role at once. Adapters implement it; the composition root and the engine hold it and
 * hand each module the roles it takes.
 */
export interface MemoryStore
  extends BankStore,
    OrphanIndexes,
    MemoryWrites,
    RecallReads,
    ConsolidationQueue,
    Heartbeats,
    AuditReads,
    Forgetting,
    OperationStore,
    WriteLeases,
    Maintenance {}
