// Cypher for the plain records of the server store: banks (and the per-bank write lock), operations with their
// idempotency keys, tombstones.
import type { Bank, Operation } from '../../../core/types.ts';
import type { Tombstone } from '../../ports.ts';
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

/** Sets the bank's embedder (null clears it). */
export const setEmbedder = (bankId: string, embedder: string | null): Statement =>
  cypher('MATCH (b:Bank {id: $bankId}) SET b.embedder = $embedder', { bankId, embedder });

export const createOperation = (op: Operation): Statement => cypher('CREATE (o:Operation $props)', { props: operationProps(op) });

export const updateOperation = (op: Operation): Statement =>
  cypher(
    `MATCH (o:Operation {id: $id})
     SET o.status = $status, o.progressDone = $done, o.progressTotal = $total, o.result = $result, o.error = $error, o.updatedAt = $updatedAt`,
    {
      id: op.id,
      status: op.status,
      done: op.progress.done,
      total: op.progress.total,
      result: JSON.stringify(op.result ?? null),
      error: op.error,
      updatedAt: op.updatedAt,
    },
  );

export const getOperation = (id: string): Statement => cypher('MATCH (o:Operation {id: $id}) RETURN o {.*} AS operation', { id });

export const unfinishedOperations = (): Statement =>
  cypher(`MATCH (o:Operation) WHERE o.status IN ['queued', 'running'] RETURN o {.*} AS operation ORDER BY operation.createdAt, operation.id`);

export const operationByKey = (bankId: string, key: string): Statement =>
  cypher('MATCH (k:OperationKey {bankId: $bankId, key: $key}) MATCH (o:Operation {id: k.operationId}) RETURN o {.*} AS operation', { bankId, key });

/** Keeps the first operation stored under a key (like INSERT OR IGNORE). */
export const setOperationKey = (bankId: string, key: string, operationId: string): Statement =>
  cypher('MERGE (k:OperationKey {bankId: $bankId, key: $key}) ON CREATE SET k.operationId = $operationId', { bankId, key, operationId });

export const createTombstones = (tombstones: Tombstone[]): Statement =>
  cypher('UNWIND $tombstones AS t CREATE (x:Tombstone) SET x = t', { tombstones: tombstones.map(tombstoneProps) });

export const listTombstones = (bankId: string, limit: number, offset = 0): Statement =>
  cypher('MATCH (t:Tombstone {bankId: $bankId}) RETURN t {.*} AS tombstone ORDER BY tombstone.at DESC, tombstone.id DESC SKIP $offset LIMIT $limit', {
    bankId,
    offset: int(offset),
    limit: int(limit),
  });
