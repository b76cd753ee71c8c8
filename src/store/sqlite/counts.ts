// Each bank's active facts and stored vectors, counted as they are written (triggers of migration 016), so reading
// either costs one row however large the bank: recall's hub share and the vector index's snapshot check ask often.
import type { Db } from './database.ts';
import { prepared } from './statements.ts';

interface BankCounts {
  activeFacts: number;
  vectors: number;
}

function countsOf(db: Db, bankId: string): BankCounts {
  const row = prepared(db, 'SELECT active_facts AS activeFacts, vectors FROM bank_counts WHERE bank_id = ?').get(bankId) as
    | BankCounts
    | undefined;
  return row ?? { activeFacts: 0, vectors: 0 };
}

/** The bank's facts that are active (not superseded): what a listing of its facts without filters counts. */
export function activeFactCount(db: Db, bankId: string): number {
  return countsOf(db, bankId).activeFacts;
}

/** The bank's rows in fact_vectors. */
export function vectorCount(db: Db, bankId: string): number {
  return countsOf(db, bankId).vectors;
}
