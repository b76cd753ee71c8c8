// Operations in the embedded store: their rows (and a bank's, newest first), idempotency keys bound atomically with
// the payload hash, a write's checkpoint of its operation (in the write's transaction), and what a bank deletion
// does to them.
import { bankDeletedError, CairnError, nowIso, type Operation, type OperationStatus } from '../../core/index.ts';
import type { KeyedOperation, OperationListQuery } from '../ports.ts';
import type { Db } from './database.ts';
import { json, toOperation, type Row } from './rows.ts';
import { prepared } from './statements.ts';

export function insertOperation(db: Db, op: Operation): void {
  prepared(
    db,
    `INSERT INTO operations (id, bank_id, kind, status, progress_done, progress_total, progress_chunks_done, progress_chunks_total,
         progress_waiting, input, result, error, created_at, updated_at, owner)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    op.id,
    op.bankId,
    op.kind,
    op.status,
    op.progress.done,
    op.progress.total,
    op.progress.chunks?.done ?? null,
    op.progress.chunks?.total ?? null,
    op.progress.waiting ?? null,
    json(op.input),
    json(op.result),
    op.error,
    op.createdAt,
    op.updatedAt,
    op.owner ?? null,
  );
}

/**
 * Writes the operation's status, progress, result and error (with `from`: only while its stored status is one of
 * them; with `op.owner`: only while that process holds it).
 */
export function updateOperation(db: Db, op: Operation, from?: OperationStatus[]): boolean {
  return (
    prepared(
      db,
      `UPDATE operations SET status = ?, progress_done = ?, progress_total = ?,
           progress_chunks_done = coalesce(?, progress_chunks_done), progress_chunks_total = coalesce(?, progress_chunks_total),
           progress_waiting = ?, result = ?, error = ?, updated_at = ?
         WHERE id = ? AND (? IS NULL OR status IN (SELECT value FROM json_each(?))) AND (? = 0 OR owner IS ?)`,
    ).run(
      op.status,
      op.progress.done,
      op.progress.total,
      op.progress.chunks?.done ?? null,
      op.progress.chunks?.total ?? null,
      op.progress.waiting ?? null,
      json(op.result),
      op.error,
      op.updatedAt,
      op.id,
      from ? 1 : null,
      json(from ?? []),
      op.owner === undefined ? 0 : 1,
      op.owner ?? null,
    ).changes > 0
  );
}

/** Takes an unfinished operation over from its holder `from` (null: none). */
export function adoptOperation(db: Db, id: string, from: string | null, to: string): boolean {
  return (
    prepared(db, `UPDATE operations SET owner = ? WHERE id = ? AND owner IS ? AND status IN ('queued', 'running')`).run(to, id, from)
      .changes === 1
  );
}

/** A write's checkpoint of its operation, inside the write's transaction: refused when the operation stopped or another process took it over. */
export function checkpoint(db: Db, op: Operation): void {
  if (!updateOperation(db, op, ['running']))
    throw new CairnError(
      'conflict',
      `operation '${op.id}' is no longer running here (failed, gone, or taken over by another process); its write was not applied`,
    );
}

/** The bank's operations newest first (through operations_by_bank), without their input. */
export function listOperations(db: Db, bankId: string, q: OperationListQuery): Operation[] {
  const rows = prepared(
    db,
    `SELECT id, bank_id, kind, status, progress_done, progress_total, progress_chunks_done, progress_chunks_total, progress_waiting, NULL AS input, result, error, created_at, updated_at, owner
       FROM operations WHERE bank_id = ? AND (? IS NULL OR status = ?) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  ).all(bankId, q.status ?? null, q.status ?? null, q.limit, q.offset) as Row[];
  return rows.map(toOperation);
}

/** The bank's unfinished retains naming the document: a substring test of the stored JSON text first (the id as
 * JSON.stringify, which wrote it, spells it), then the items parsed by SQLite, for those only. */
export function retainsNaming(db: Db, bankId: string, documentId: string): string[] {
  return prepared(
    db,
    `SELECT DISTINCT o.id, o.created_at FROM operations o, json_each(o.input, '$.items') i
       WHERE o.status IN ('queued', 'running') AND o.bank_id = ? AND o.kind = 'retain' AND instr(o.input, ?) > 0
         AND json_extract(i.value, '$.documentId') = ?
       ORDER BY o.created_at, o.id`,
  )
    .pluck()
    .all(bankId, JSON.stringify(documentId), documentId) as string[];
}

export function keyed(db: Db, bankId: string, key: string): KeyedOperation | null {
  const r = prepared(
    db,
    'SELECT o.*, k.payload_hash AS key_payload_hash FROM operation_keys k JOIN operations o ON o.id = k.operation_id WHERE k.bank_id = ? AND k.key = ?',
  ).get(bankId, key) as Row | undefined;
  return r ? { operation: toOperation(r), payloadHash: r.key_payload_hash === null ? null : String(r.key_payload_hash) } : null;
}

export function bindKey(db: Db, bankId: string, key: string, payloadHash: string, op: Operation): KeyedOperation & { created: boolean } {
  return db
    .transaction(() => {
      const bound = keyed(db, bankId, key);
      const retry =
        bound !== null && bound.operation.status === 'failed' && (bound.payloadHash === null || bound.payloadHash === payloadHash);
      if (bound && !retry) return { ...bound, created: false };
      insertOperation(db, op);
      prepared(
        db,
        `INSERT INTO operation_keys (bank_id, key, operation_id, payload_hash) VALUES (?, ?, ?, ?)
         ON CONFLICT(bank_id, key) DO UPDATE SET operation_id = excluded.operation_id, payload_hash = excluded.payload_hash`,
      ).run(bankId, key, op.id, payloadHash);
      return { operation: op, payloadHash, created: true };
    })
    .immediate();
}

/** Inside a bank's deletion: its unfinished operations fail (input dropped, keys kept), the others go with their keys. */
export function forgetBankOperations(db: Db, bankId: string): void {
  const unfinished = (
    prepared(db, `SELECT id FROM operations WHERE bank_id = ? AND status IN ('queued', 'running')`).all(bankId) as Array<{ id: string }>
  ).map((r) => r.id);
  prepared(
    db,
    `UPDATE operations SET status = 'failed', input = NULL, error = ?, updated_at = ? WHERE bank_id = ? AND status IN ('queued', 'running')`,
  ).run(bankDeletedError(bankId), nowIso(), bankId);
  const kept = JSON.stringify(unfinished);
  prepared(db, 'DELETE FROM operation_keys WHERE bank_id = ? AND operation_id NOT IN (SELECT value FROM json_each(?))').run(bankId, kept);
  prepared(db, 'DELETE FROM operations WHERE bank_id = ? AND id NOT IN (SELECT value FROM json_each(?))').run(bankId, kept);
}
