// Cypher for forgetting, as the embedded store forgets: deleted facts go with their mentions, links and evidence
// (DETACH DELETE); revisions that quoted them are redacted; observations that cited them are blanked (text,
// entities, every revision) until consolidation rebuilds them; facts they had superseded are current again;
// a deleted observation takes its history with it. A bank is deleted in two steps: its node (and a tombstone)
// at once, then everything carrying its id, in batches.
import { FORGOTTEN_TEXT } from '../../ports.ts';
import { cypher, int, type Statement } from '../statement.ts';

export const factKinds = (bankId: string, ids: string[]): Statement =>
  cypher('MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId RETURN f.id AS id, f.kind AS kind', { bankId, ids });

export const factsOfDocument = (bankId: string, documentId: string): Statement =>
  cypher('MATCH (f:Fact {bankId: $bankId, documentId: $documentId}) RETURN f.id AS id ORDER BY f.seq', { bankId, documentId });

export const documentExists = (bankId: string, documentId: string): Statement =>
  cypher('MATCH (d:Document {bankId: $bankId, id: $documentId}) RETURN d.id AS id', { bankId, documentId });

/** Observations citing any of the facts, other than those facts themselves. */
export const observationsCiting = (bankId: string, ids: string[]): Statement =>
  cypher(
    `MATCH (o:Fact)-[:EVIDENCE]->(f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId AND NOT o.id IN $ids
     RETURN DISTINCT o.id AS id`,
    { bankId, ids },
  );

/** Everything deleting the facts changes besides the facts themselves, in order; the facts go last. */
export function forgetFacts(bankId: string, ids: string[], citingObservationIds: string[], now: string): Statement[] {
  const redact = `SET r.newText = $forgotten, r.oldText = CASE WHEN r.oldText IS NULL THEN null ELSE $forgotten END`;
  return [
    cypher(`MATCH (r:Revision {bankId: $bankId}) WHERE any(x IN r.factIds WHERE x IN $ids) ${redact}`, {
      bankId,
      ids,
      forgotten: FORGOTTEN_TEXT,
    }),
    cypher(`MATCH (r:Revision {bankId: $bankId}) WHERE r.observationId IN $observationIds ${redact}`, {
      bankId,
      observationIds: citingObservationIds,
      forgotten: FORGOTTEN_TEXT,
    }),
    cypher(
      `MATCH (o:Fact) WHERE o.id IN $observationIds AND o.bankId = $bankId AND o.kind = 'observation'
       SET o.text = $forgotten, o.updatedAt = $now, o.entityIds = [], o.noVector = true
       REMOVE o.pendingVector
       WITH o
       OPTIONAL MATCH (o)-[m:MENTIONS]->()
       DELETE m`,
      { bankId, observationIds: citingObservationIds, forgotten: FORGOTTEN_TEXT, now },
    ),
    cypher(
      `MATCH (f:Fact {bankId: $bankId, status: 'superseded'}) WHERE f.supersededBy IN $ids
       SET f.status = 'active', f.updatedAt = $now REMOVE f.supersededBy, f.supersededAt, f.validTo`,
      { bankId, ids, now },
    ),
    cypher('MATCH (r:Revision {bankId: $bankId}) WHERE r.observationId IN $ids DELETE r', { bankId, ids }),
    cypher('MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId DETACH DELETE f', { bankId, ids }),
  ];
}

export const deleteDocumentChunks = (bankId: string, documentId: string): Statement[] => [
  cypher('MATCH (c:Chunk {bankId: $bankId, documentId: $documentId}) DETACH DELETE c', { bankId, documentId }),
  cypher('MATCH (d:Document {bankId: $bankId, id: $documentId}) DETACH DELETE d', { bankId, documentId }),
];

/** The bank node goes, and its tombstones (a deleted bank keeps only the tombstone saying it was deleted). */
export const dropBank = (bankId: string): Statement[] => [
  cypher('MATCH (b:Bank {id: $bankId}) WITH b, b.id AS id DETACH DELETE b RETURN id', { bankId }),
  cypher(`MATCH (t:Tombstone {bankId: $bankId}) WHERE t.kind <> 'bank' DELETE t`, { bankId }),
];

/** The labels carrying a bank id whose nodes are swept when the bank is deleted (thread memory's too, as the embedded
 * store's foreign keys delete it with the bank; not the usage ledger, which outlives the bank). */
export const BANK_LABELS = [
  'Fact',
  'Chunk',
  'Document',
  'Entity',
  'EntityKey',
  'Revision',
  'Operation',
  'OperationKey',
  'ThreadMemoryItem',
  'WorkingMemory',
  'ThreadMessage',
  'Thread',
  'ThreadItemCounter',
] as const;
export type BankLabel = (typeof BANK_LABELS)[number];

const SWEEP: Record<BankLabel, string> = {
  Fact: 'MATCH (n:Fact {bankId: $bankId}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted',
  Chunk: 'MATCH (n:Chunk {bankId: $bankId}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted',
  Document: 'MATCH (n:Document {bankId: $bankId}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted',
  Entity: 'MATCH (n:Entity {bankId: $bankId}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted',
  EntityKey: 'MATCH (n:EntityKey {bankId: $bankId}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted',
  Revision: 'MATCH (n:Revision {bankId: $bankId}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted',
  // Operations a deletion failed (bankDeletedAt) stay readable, with their keys.
  Operation:
    'MATCH (n:Operation {bankId: $bankId}) WHERE n.bankDeletedAt IS NULL WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted',
  OperationKey: `MATCH (n:OperationKey {bankId: $bankId}) WHERE NOT EXISTS { MATCH (o:Operation {id: n.operationId}) WHERE o.bankDeletedAt IS NOT NULL }
    WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS deleted`,
  ThreadMemoryItem: 'MATCH (n:ThreadMemoryItem {bankId: $bankId}) WITH n LIMIT $batch DELETE n RETURN count(*) AS deleted',
  WorkingMemory: 'MATCH (n:WorkingMemory {bankId: $bankId}) WITH n LIMIT $batch DELETE n RETURN count(*) AS deleted',
  ThreadMessage: 'MATCH (n:ThreadMessage {bankId: $bankId}) WITH n LIMIT $batch DELETE n RETURN count(*) AS deleted',
  Thread: 'MATCH (n:Thread {bankId: $bankId}) WITH n LIMIT $batch DELETE n RETURN count(*) AS deleted',
  ThreadItemCounter: 'MATCH (n:ThreadItemCounter {bankId: $bankId}) WITH n LIMIT $batch DELETE n RETURN count(*) AS deleted',
};

/** Deletes up to `batch` nodes of the label carrying the bank id; returns how many. Run until it returns 0. */
export const sweepBank = (label: BankLabel, bankId: string, batch: number): Statement =>
  cypher(SWEEP[label], { bankId, batch: int(batch) });

/** Bank ids found on nodes of the label whose bank no longer exists (a bank deletion that died mid-sweep). */
const ORPHANS: Record<BankLabel, string> = {
  Fact: 'MATCH (n:Fact) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  Chunk: 'MATCH (n:Chunk) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  Document: 'MATCH (n:Document) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  Entity: 'MATCH (n:Entity) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  EntityKey: 'MATCH (n:EntityKey) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  Revision: 'MATCH (n:Revision) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  Operation:
    'MATCH (n:Operation) WHERE n.bankDeletedAt IS NULL WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  OperationKey: `MATCH (n:OperationKey) WHERE NOT EXISTS { MATCH (o:Operation {id: n.operationId}) WHERE o.bankDeletedAt IS NOT NULL }
    WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId`,
  ThreadMemoryItem:
    'MATCH (n:ThreadMemoryItem) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  WorkingMemory: 'MATCH (n:WorkingMemory) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  ThreadMessage: 'MATCH (n:ThreadMessage) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  Thread: 'MATCH (n:Thread) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
  ThreadItemCounter:
    'MATCH (n:ThreadItemCounter) WITH DISTINCT n.bankId AS bankId WHERE NOT EXISTS { MATCH (:Bank {id: bankId}) } RETURN bankId',
};

export const orphanBankIds = (label: BankLabel): Statement => cypher(ORPHANS[label]);
