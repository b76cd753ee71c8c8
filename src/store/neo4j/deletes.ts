// Deletions on the Neo4j side, each in one transaction under the bank's lock (statements/deletes.ts says what a
// deletion changes). They return the facts whose Qdrant points must go: the deleted ones and the observations
// blanked because they cited them. A bank is deleted in two steps: the bank node and a tombstone at once (the
// bank is gone for every reader), then its nodes in batches and its full-text indexes; reconcile finishes a sweep
// a crash interrupted.
import { bankDeletedError } from '../../core/index.ts';
import { type DeleteResult, withDocument } from '../ports.ts';
import type { Neo4jConnection, Tx } from './connection.ts';
import { dropBankIndexes } from './keyword-schema.ts';
import * as del from './statements/deletes.ts';
import { pruneEntities } from './statements/items.ts';
import { createTombstones, failOperationsOfBank, tombstone } from './statements/records.ts';
import { lock } from './writes.ts';

export interface Deleted {
  result: DeleteResult;
  /** Fact ids whose points must be deleted from Qdrant. */
  pointsToDelete: string[];
}

async function forget(tx: Tx, bankId: string, factIds: string[], now: string): Promise<string[]> {
  if (factIds.length === 0) return [];
  const citing = (await tx.run(del.observationsCiting(bankId, factIds))).map((r) => String(r.id));
  for (const st of del.forgetFacts(bankId, factIds, citing, now)) await tx.run(st);
  return citing;
}

export async function deleteFacts(db: Neo4jConnection, bankId: string, factIds: string[], reason: string, now: string): Promise<Deleted> {
  return db.writeTx(async (tx) => {
    await lock(tx, bankId, now);
    const rows = await tx.run(del.factKinds(bankId, [...new Set(factIds)]));
    const kinds = new Map(rows.map((r) => [String(r.id), String(r.kind)]));
    const existing = factIds.filter((id, i) => kinds.has(id) && factIds.indexOf(id) === i);
    const observationIds = await forget(tx, bankId, existing, now);
    if (existing.length) {
      await tx.run(
        createTombstones(
          existing.map((id) => tombstone(bankId, kinds.get(id) === 'observation' ? 'observation' : 'fact', id, reason, now)),
        ),
      );
      for (const st of pruneEntities(bankId)) await tx.run(st);
    }
    return { result: { factIds: existing, observationIds }, pointsToDelete: [...existing, ...observationIds] };
  });
}

export async function deleteDocument(
  db: Neo4jConnection,
  bankId: string,
  documentId: string,
  reason: string,
  now: string,
): Promise<Deleted | null> {
  return db.writeTx(async (tx) => {
    await lock(tx, bankId, now);
    if ((await tx.run(del.documentExists(bankId, documentId))).length === 0) return null;
    const factIds = (await tx.run(del.factsOfDocument(bankId, documentId))).map((r) => String(r.id));
    const observationIds = await forget(tx, bankId, factIds, now);
    for (const st of del.deleteDocumentChunks(bankId, documentId)) await tx.run(st);
    await tx.run(
      createTombstones([
        tombstone(bankId, 'document', documentId, reason, now),
        ...factIds.map((id) => tombstone(bankId, 'fact', id, withDocument(reason, documentId), now)),
      ]),
    );
    for (const st of pruneEntities(bankId)) await tx.run(st);
    return { result: { factIds, observationIds }, pointsToDelete: [...factIds, ...observationIds] };
  });
}

/** Drops the bank node (and its tombstones but the new one). False when there was no such bank. */
export async function dropBank(db: Neo4jConnection, bankId: string, reason: string, now: string): Promise<boolean> {
  return db.writeTx(async (tx) => {
    const [gone, ...rest] = del.dropBank(bankId);
    if ((await tx.run(gone)).length === 0) return false;
    for (const st of rest) await tx.run(st);
    await tx.run(failOperationsOfBank(bankId, bankDeletedError(bankId), now));
    await tx.run(createTombstones([tombstone(bankId, 'bank', bankId, reason, now)]));
    return true;
  });
}

/** Deletes every node carrying the bank id, a batch per transaction, then the bank's keyword indexes. Returns how many. */
export async function sweepBank(db: Neo4jConnection, bankId: string, batch = 5000): Promise<number> {
  let total = 0;
  for (const label of del.BANK_LABELS) {
    for (;;) {
      const [row] = await db.write(del.sweepBank(label, bankId, batch));
      const n = Number(row?.deleted ?? 0);
      total += n;
      if (n < batch) break;
    }
  }
  await dropBankIndexes(db, bankId);
  return total;
}

/** Bank ids left on nodes by a bank deletion that died mid-sweep. */
export async function orphanBanks(db: Neo4jConnection): Promise<string[]> {
  const out = new Set<string>();
  for (const label of del.BANK_LABELS) for (const r of await db.read(del.orphanBankIds(label))) if (r.bankId) out.add(String(r.bankId));
  return [...out];
}
