// Whether a bank's or a document's delete has begun and not finished (deletes.ts records it first and removes the
// record last): writes, consolidation claims, bank creation and the purges themselves ask here.
import type { Db } from './database.ts';
import { prepared } from './statements.ts';

export const bankPurging = (db: Db, bankId: string): boolean =>
  prepared(db, 'SELECT 1 FROM bank_purges WHERE bank_id = ?').get(bankId) !== undefined;

export const documentPurging = (db: Db, bankId: string, documentId: string): boolean =>
  prepared(db, 'SELECT 1 FROM document_purges WHERE bank_id = ? AND document_id = ?').get(bankId, documentId) !== undefined;
