// Cypher for reconcile: stagings a crash left behind (documents with a pending hash, pending facts and chunks),
// rolling a document's staging back, and the lookups that compare Neo4j with Qdrant (who owns a point, which
// visible facts should have one).
import { cypher, int, type Statement } from '../statement.ts';
import { INCOMPLETE_HASH } from './items.ts';

export const stalePendingDocuments = (cutoff: string, batch: number): Statement =>
  cypher(
    `MATCH (d:Document) WHERE d.pendingSince < $cutoff
     RETURN d.bankId AS bankId, d.id AS id, d.pendingHash AS hash ORDER BY d.pendingSince LIMIT $batch`,
    { cutoff, batch: int(batch) },
  );

export const pendingFactsOfDocument = (bankId: string, documentId: string): Statement =>
  cypher('MATCH (f:Fact {bankId: $bankId, documentId: $documentId}) WHERE f.pending = true RETURN f {.*} AS fact ORDER BY fact.seq', {
    bankId,
    documentId,
  });

export const pendingChunksOfDocument = (bankId: string, documentId: string): Statement =>
  cypher('MATCH (c:Chunk {bankId: $bankId, documentId: $documentId}) WHERE c.pending = true RETURN c.id AS id', { bankId, documentId });

/** Facts staged (new and invisible, or with a vector not yet in Qdrant) before the cutoff, outside document stagings. */
export const stalePendingFacts = (cutoff: string, batch: number): Statement =>
  cypher(
    `MATCH (f:Fact) WHERE f.pendingSince < $cutoff
       AND NOT EXISTS { MATCH (d:Document {bankId: f.bankId, id: f.documentId}) WHERE d.pendingHash IS NOT NULL }
     RETURN f {.*} AS fact ORDER BY fact.pendingSince LIMIT $batch`,
    { cutoff, batch: int(batch) },
  );

/** Undoes a document's staging: its pending facts (returned) and chunks go, the document keeps its old hash. */
export const rollbackDocument = (bankId: string, documentId: string): Statement[] => [
  cypher(
    `MATCH (f:Fact {bankId: $bankId, documentId: $documentId}) WHERE f.pending = true
     WITH f, f.id AS id DETACH DELETE f RETURN id`,
    { bankId, documentId },
  ),
  cypher('MATCH (c:Chunk {bankId: $bankId, documentId: $documentId}) WHERE c.pending = true DETACH DELETE c', { bankId, documentId }),
  cypher('MATCH (d:Document {bankId: $bankId, id: $documentId}) REMOVE d.pendingHash, d.pendingSince', { bankId, documentId }),
  cypher(
    `MATCH (d:Document {bankId: $bankId, id: $documentId}) WHERE d.contentHash = $incomplete
       AND NOT EXISTS { MATCH (c:Chunk {bankId: $bankId, documentId: $documentId}) }
     DELETE d`,
    { bankId, documentId, incomplete: INCOMPLETE_HASH },
  ),
];

/** For each point's fact id: whether the fact exists, in which bank, whether it is staged or has no vector. */
export const pointOwners = (factIds: string[]): Statement =>
  cypher(
    `UNWIND $factIds AS id
     OPTIONAL MATCH (f:Fact {id: id})
     OPTIONAL MATCH (b:Bank {id: f.bankId})
     RETURN id, f.bankId AS bankId, coalesce(f.pending, false) AS pending, f.pendingVector IS NOT NULL AS staged,
            coalesce(f.noVector, false) AS noVector, b.embedder AS embedder`,
    { factIds },
  );

/** A page of the bank's facts that should have a point (visible, not blanked), after a sequence position. */
export const factsExpectingPoints = (bankId: string, afterSeq: number, batch: number): Statement =>
  cypher(
    `MATCH (f:Fact {bankId: $bankId}) WHERE f.seq > $afterSeq AND coalesce(f.pending, false) = false
       AND coalesce(f.noVector, false) = false AND f.pendingVector IS NULL
     RETURN f {.*} AS fact ORDER BY fact.seq LIMIT $batch`,
    { bankId, afterSeq, batch: int(batch) },
  );

/** Facts whose point is missing and cannot be rebuilt now: flagged for `cairn reembed`. */
export const markNeedsEmbedding = (bankId: string, ids: string[]): Statement =>
  cypher('MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId SET f.needsEmbedding = true', { bankId, ids });

export const clearNeedsEmbedding = (bankId: string, ids: string[]): Statement =>
  cypher('MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId REMOVE f.needsEmbedding, f.noVector', { bankId, ids });
