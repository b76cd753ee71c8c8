// Cypher for the plain records of the server store: banks (and the per-bank write lock), operations with their
// idempotency keys, tombstones.
import { type Bank, newId, type Operation, type OperationStatus } from '../../../core/index.ts';
import type { OperationListQuery, Tombstone, TombstoneTarget, WriteLease } from '../../ports.ts';
import { bankProps, operationProps, tombstoneProps } from '../props.ts';
import { cypher, int, type Statement } from '../statement.ts';

export const createBank = (b: Bank): Statement => cypher('CREATE (b:Bank $props)', { props: bankProps(b) });

export const getBank = (id: string): Statement => cypher('MATCH (b:Bank {id: $id}) RETURN b {.*} AS bank', { id });

export const listBanks = (): Statement => cypher('MATCH (b:Bank) RETURN b {.*} AS bank ORDER BY bank.createdAt, bank.id');

export const updateBank = (b: Bank): Statement =>
  cypher('MATCH (b:Bank {id: $id}) SET b.name = $name, b.mission = $mission, b.config = $config, b.updatedAt = $updatedAt', {
    id: b.id,
    name: b.name,
    mission: b.mission,
    config: JSON.stringify(b.config ?? {}),
    updatedAt: b.updatedAt,
  });

/**
 * Takes the bank's write lock for the rest of the transaction (writing a property locks the node), so writes,
 * claims and consolidation results of one bank are serialized across processes. Returns the bank's embedder;
 * no row when the bank does not exist.
 */
export const lockBank = (bankId: string, now: string): Statement =>
  cypher('MATCH (b:Bank {id: $bankId}) SET b.lockedAt = $now RETURN b.embedder AS embedder', { bankId, now });

/** Takes or renews the bank's write lease (after lockBank) when it is free, lapsed, the holder's or takeOver's. */
export const takeWriteLease = (lease: WriteLease, takeOver: string | null, now: string): Statement =>
  cypher(
    `MATCH (b:Bank {id: $bankId})
     FOREACH (_ IN CASE WHEN b.writeHolder IS NULL OR b.writeHolder IN [$holder, $takeOver] OR b.writeUntil < $now THEN [1] ELSE [] END |
       SET b.writeHolder = $holder, b.writeHost = $host, b.writePid = $pid, b.writeStartedAt = $startedAt, b.writeUntil = $until)
     RETURN b.writeHolder AS holder, b.writeHost AS host, b.writePid AS pid, b.writeStartedAt AS startedAt, b.writeUntil AS until`,
    {
      bankId: lease.bankId,
      holder: lease.holder,
      host: lease.host,
      pid: lease.pid,
      startedAt: lease.startedAt,
      until: lease.until,
      takeOver,
      now,
    },
  );

/** Gives the bank's write lease up if `holder` still holds it. */
export const releaseWriteLease = (bankId: string, holder: string): Statement =>
  cypher(
    `MATCH (b:Bank {id: $bankId}) WHERE b.writeHolder = $holder
     REMOVE b.writeHolder, b.writeHost, b.writePid, b.writeStartedAt, b.writeUntil`,
    { bankId, holder },
  );

/** Sets the bank's embedder (null clears it). */
export const setEmbedder = (bankId: string, embedder: string | null): Statement =>
  cypher('MATCH (b:Bank {id: $bankId}) SET b.embedder = $embedder', { bankId, embedder });

export const createOperation = (op: Operation): Statement => cypher('CREATE (o:Operation $props)', { props: operationProps(op) });

const operationState = (op: Operation) => ({
  id: op.id,
  status: op.status,
  done: op.progress.done,
  total: op.progress.total,
  chunksDone: op.progress.chunks?.done ?? null,
  chunksTotal: op.progress.chunks?.total ?? null,
  waiting: op.progress.waiting ?? null,
  result: JSON.stringify(op.result ?? null),
  error: op.error,
  updatedAt: op.updatedAt,
  // Checked only when the operation names its holder.
  checkOwner: op.owner !== undefined,
  owner: op.owner ?? null,
});

const SET_STATE = `SET o.status = $status, o.progressDone = $done, o.progressTotal = $total,
     o.progressChunksDone = coalesce($chunksDone, o.progressChunksDone), o.progressChunksTotal = coalesce($chunksTotal, o.progressChunksTotal),
     o.progressWaiting = $waiting, o.result = $result, o.error = $error, o.updatedAt = $updatedAt`;

/**
 * Writes the operation's state ($from null: whatever its status; else only from one of those), only while `op.owner`
 * (when given) holds it; a row when written.
 */
export const updateOperation = (op: Operation, from: OperationStatus[] | null = null): Statement =>
  cypher(
    `MATCH (o:Operation {id: $id}) WHERE ($from IS NULL OR o.status IN $from) AND (NOT $checkOwner OR coalesce(o.owner, '') = coalesce($owner, ''))
     ${SET_STATE} RETURN o.id AS id`,
    { ...operationState(op), from },
  );

/** A write's checkpoint of its operation: applied only while the stored operation runs, held by the writer (no row: it stopped). */
export const checkpointOperation = (op: Operation): Statement => updateOperation(op, ['running']);

/** One row while the operation runs. */
export const operationRunning = (id: string): Statement =>
  cypher(`MATCH (o:Operation {id: $id}) WHERE o.status = 'running' RETURN o.id AS id`, { id });

/** Takes an unfinished operation over from $from (null: no holder); returns a row when it did. */
export const adoptOperation = (id: string, from: string | null, to: string): Statement =>
  cypher(
    `MATCH (o:Operation {id: $id}) WHERE o.status IN ['queued', 'running'] AND coalesce(o.owner, '') = coalesce($from, '')
     SET o.owner = $to
     RETURN o.id AS id`,
    { id, from, to },
  );

export const getOperation = (id: string): Statement => cypher('MATCH (o:Operation {id: $id}) RETURN o {.*} AS operation', { id });

/**
 * The bank's operations newest first (ties by id), of one status when given ($status null: any), without their input
 * (a retain's can be megabytes): through the (bankId, createdAt) index of migration 014.
 */
export const listOperations = (bankId: string, q: OperationListQuery): Statement =>
  cypher(
    `MATCH (o:Operation {bankId: $bankId}) WHERE ($status IS NULL OR o.status = $status)
     WITH o ORDER BY o.createdAt DESC, o.id DESC SKIP $offset LIMIT $limit
     RETURN o {.id, .bankId, .kind, .status, .progressDone, .progressTotal, .progressChunksDone, .progressChunksTotal, .progressWaiting, .result, .error, .createdAt, .updatedAt, .owner} AS operation`,
    { bankId, status: q.status ?? null, offset: int(q.offset), limit: int(q.limit) },
  );

export const unfinishedOperations = (): Statement =>
  cypher(
    `MATCH (o:Operation) WHERE o.status IN ['queued', 'running'] RETURN o {.*} AS operation ORDER BY operation.createdAt, operation.id`,
  );

/** The bank's unfinished retains whose input text holds the document id as JSON spells it (the caller parses those). */
export const retainsNaming = (bankId: string, documentId: string): Statement =>
  cypher(
    `MATCH (o:Operation {bankId: $bankId}) WHERE o.status IN ['queued', 'running'] AND o.kind = 'retain' AND o.input CONTAINS $needle
     RETURN o.id AS id, o.input AS input ORDER BY o.createdAt, o.id`,
    { bankId, needle: JSON.stringify(documentId) },
  );

export const operationByKey = (bankId: string, key: string): Statement =>
  cypher('MATCH (k:OperationKey {bankId: $bankId, key: $key}) MATCH (o:Operation {id: k.operationId}) RETURN o {.*} AS operation', {
    bankId,
    key,
  });

export const operationsByKey = (key: string): Statement =>
  cypher(
    'MATCH (k:OperationKey {key: $key}) MATCH (o:Operation {id: k.operationId}) RETURN o {.*} AS operation ORDER BY operation.createdAt, operation.id',
    { key },
  );

/**
 * Takes the key (creating it bound to $operationId when free; the key's uniqueness constraint makes concurrent
 * binds wait for each other) and returns what it is bound to, with that operation when it exists.
 */
export const takeOperationKey = (bankId: string, key: string, operationId: string, payloadHash: string): Statement =>
  cypher(
    `MERGE (k:OperationKey {bankId: $bankId, key: $key})
     ON CREATE SET k.operationId = $operationId, k.payloadHash = $payloadHash
     WITH k
     OPTIONAL MATCH (o:Operation {id: k.operationId})
     RETURN k.operationId AS operationId, k.payloadHash AS payloadHash, o {.*} AS operation`,
    { bankId, key, operationId, payloadHash },
  );

/** Binds a taken key to another operation (a retry after a failure). */
export const rebindOperationKey = (bankId: string, key: string, operationId: string, payloadHash: string): Statement =>
  cypher('MATCH (k:OperationKey {bankId: $bankId, key: $key}) SET k.operationId = $operationId, k.payloadHash = $payloadHash', {
    bankId,
    key,
    operationId,
    payloadHash,
  });

/** Inside a bank's deletion: its unfinished operations fail without their input and are kept (the sweep spares them). */
export const failOperationsOfBank = (bankId: string, error: string, now: string): Statement =>
  cypher(
    `MATCH (o:Operation {bankId: $bankId}) WHERE o.status IN ['queued', 'running']
     SET o.status = 'failed', o.error = $error, o.updatedAt = $now, o.bankDeletedAt = $now REMOVE o.input`,
    { bankId, error, now },
  );

/** A new tombstone record (for createTombstones). */
export const tombstone = (bankId: string, kind: Tombstone['kind'], targetId: string, reason: string, at: string): Tombstone => ({
  id: newId('tmb'),
  bankId,
  kind,
  targetId,
  reason,
  at,
});

export const createTombstones = (tombstones: Tombstone[]): Statement =>
  cypher('UNWIND $tombstones AS t CREATE (x:Tombstone) SET x = t', { tombstones: tombstones.map(tombstoneProps) });

export const tombstoneOf = (bankId: string, targetId: string, kinds: TombstoneTarget[]): Statement =>
  cypher(
    `MATCH (t:Tombstone {bankId: $bankId, targetId: $targetId}) WHERE t.kind IN $kinds
     RETURN t {.*} AS tombstone ORDER BY tombstone.at DESC, tombstone.id DESC LIMIT 1`,
    { bankId, targetId, kinds },
  );

export const listTombstones = (bankId: string, limit: number, offset = 0): Statement =>
  cypher(
    'MATCH (t:Tombstone {bankId: $bankId}) RETURN t {.*} AS tombstone ORDER BY tombstone.at DESC, tombstone.id DESC SKIP $offset LIMIT $limit',
    {
      bankId,
      offset: int(offset),
      limit: int(limit),
    },
  );
