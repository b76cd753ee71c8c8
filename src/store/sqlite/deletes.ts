// Forgetting that really forgets: deleting facts, documents and banks cascades through facts, vectors,
// keyword entries, links and evidence; revisions that quoted deleted facts are redacted; a tombstone
// records what was deleted, when and why, never the content.
import type { DeleteResult } from '../ports.ts';
import type { Db } from './database.ts';
import { placeholders } from './rows.ts';
import { bumpGraphVersion, observationsCiting, pruneEntities, tombstone } from './writes.ts';


function deleteFactRows(db: Db, bankId: string, factIds: string[]): string[] {
  const observationIds = observationsCiting(db, factIds).filter((id) => !factIds.includes(id));
  const redact = db.prepare(
    `UPDATE observation_revisions SET old_text = CASE WHEN old_text IS NULL THEN NULL ELSE '[forgotten]' END, new_text = '[forgotten]'
     WHERE bank_id = ? AND EXISTS (SELECT 1 FROM json_each(fact_ids) j WHERE j.value = ?)`,
  );
  for (const id of factIds) redact.run(bankId, id);
  for (let i = 0; i < factIds.length; i += 500) {
    const part = factIds.slice(i, i + 500);
    db.prepare(`DELETE FROM facts WHERE bank_id = ? AND id IN (${placeholders(part.length)})`).run(bankId, ...part);
  }
  return observationIds;
}

export function deleteFacts(db: Db, bankId: string, factIds: string[], reason: string): DeleteResult {
  return db
    .transaction(() => {
      const existing = factIds.filter((id) => db.prepare('SELECT 1 FROM facts WHERE id = ? AND bank_id = ?').get(id, bankId));
      const observationIds = deleteFactRows(db, bankId, existing);
      for (const id of existing) tombstone(db, bankId, 'fact', id, reason);
      pruneEntities(db, bankId);
      bumpGraphVersion(db, bankId);
      return { factIds: existing, observationIds };
    })
    .immediate();
}

export function deleteDocument(db: Db, bankId: string, documentId: string, reason: string): DeleteResult | null {
  return db
    .transaction(() => {
      const doc = db.prepare('SELECT 1 FROM documents WHERE bank_id = ? AND id = ?').get(bankId, documentId);
      if (!doc) return null;
      const factIds = (db.prepare('SELECT id FROM facts WHERE bank_id = ? AND document_id = ?').all(bankId, documentId) as Array<{ id: string }>).map((r) => r.id);
      const observationIds = deleteFactRows(db, bankId, factIds);
      db.prepare('DELETE FROM documents WHERE bank_id = ? AND id = ?').run(bankId, documentId);
      tombstone(db, bankId, 'document', documentId, reason);
      pruneEntities(db, bankId);
      bumpGraphVersion(db, bankId);
      return { factIds, observationIds };
    })
    .immediate();
}

export function deleteBank(db: Db, bankId: string): boolean {
  return db
    .transaction(() => {
      const found = db.prepare('DELETE FROM banks WHERE id = ?').run(bankId).changes > 0;
      if (!found) return false;
      // Rows without a foreign key to banks.
      for (const table of ['entity_keys', 'fact_entities', 'fact_links', 'evidence', 'vector_changes', 'operation_keys'])
        db.prepare(`DELETE FROM ${table} WHERE bank_id = ?`).run(bankId);
      db.prepare('DELETE FROM operations WHERE bank_id = ?').run(bankId);
      db.prepare('DELETE FROM tombstones WHERE bank_id = ?').run(bankId);
      tombstone(db, bankId, 'bank', bankId, 'bank deleted');
      return true;
    })
    .immediate();
}
