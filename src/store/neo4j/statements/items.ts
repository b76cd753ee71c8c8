// Cypher for writing a retained item (document, chunks, entities, facts, mentions, links). A write whose vectors
// still have to reach Qdrant is staged: its facts and chunks are `pending` (invisible to every read) and keep
// their vector in `pendingVector`; the document keeps its old hash and the new one waits in `pendingHash`.
// Activation (after the vectors are in Qdrant) makes it all visible at once; reconcile completes or rolls back
// stagings that a crash left behind. Every statement is idempotent, so a write can be applied again.
import type { Chunk, DocumentRecord, Entity, Fact, FactLink } from '../../../core/index.ts';
import { keywordNames } from '../keyword-names.ts';
import { chunkProps, documentProps, entityKeys, entityProps, factContent, factLifecycle } from '../props.ts';
import { cypher, floats, type Statement } from '../statement.ts';

/** Placeholder hash of a document whose first write is not complete: it never equals a real hash. */
export const INCOMPLETE_HASH = 'incomplete';

export interface Staging {
  /** True: the write waits for its vectors (pending); false: it is visible as soon as the transaction commits. */
  pending: boolean;
  now: string;
}

export function upsertDocument(d: DocumentRecord, s: Staging): Statement {
  return cypher(
    `MERGE (d:Document {bankId: $bankId, id: $id})
     ON CREATE SET d.createdAt = $props.createdAt, d.contentHash = $incomplete
     SET d.metadata = $props.metadata, d.tags = $props.tags, d.updatedAt = $now,
         d.contentHash = CASE WHEN $pending THEN d.contentHash ELSE $hash END,
         d.pendingHash = CASE WHEN $pending THEN $hash ELSE null END,
         d.pendingSince = CASE WHEN $pending THEN $now ELSE null END`,
    {
      bankId: d.bankId,
      id: d.id,
      props: documentProps(d),
      hash: d.contentHash,
      incomplete: INCOMPLETE_HASH,
      pending: s.pending,
      now: s.now,
    },
  );
}

/** Deletes the facts of the given chunks (all of them, or only pending ones), returning their ids. */
export function deleteFactsOfChunks(bankId: string, chunkIds: string[], onlyPending: boolean): Statement {
  return cypher(
    `MATCH (f:Fact {bankId: $bankId}) WHERE f.chunkId IN $chunkIds AND ($onlyPending = false OR f.pending = true)
     WITH f, f.id AS id DETACH DELETE f RETURN id`,
    { bankId, chunkIds, onlyPending },
  );
}

export const deleteChunks = (bankId: string, chunkIds: string[]): Statement =>
  cypher('MATCH (c:Chunk {bankId: $bankId}) WHERE c.id IN $chunkIds DETACH DELETE c', { bankId, chunkIds });

/** Creates or rewrites chunks of the bank; each carries the bank's keyword label (its full-text index). */
export function upsertChunks(bankId: string, chunks: Chunk[], s: Staging): Statement {
  return cypher(
    `UNWIND $chunks AS c
     MERGE (x:Chunk {id: c.id})
     SET x += c, x:$($chunkLabel), x.pending = $pending, x.pendingSince = CASE WHEN $pending THEN $now ELSE null END`,
    { chunks: chunks.map(chunkProps), chunkLabel: keywordNames(bankId).chunkLabel, pending: s.pending, now: s.now },
  );
}

export function upsertEntities(entities: Entity[]): Statement {
  return cypher('UNWIND $entities AS e MERGE (x:Entity {id: e.id}) SET x += e', { entities: entities.map(entityProps) });
}

/** Keys under which the entities are found; the first entity to take a key keeps it (like INSERT OR IGNORE). */
export function upsertEntityKeys(bankId: string, entities: Entity[]): Statement {
  const keys = entities.flatMap((e) => entityKeys(e).map((key) => ({ key, entityId: e.id })));
  return cypher('UNWIND $keys AS k MERGE (x:EntityKey {bankId: $bankId, key: k.key}) ON CREATE SET x.entityId = k.entityId', {
    bankId,
    keys,
  });
}

/** Numbers the facts in $rows with the bank's next sequence positions (the store's insertion order, which listing
 * and the queue follow): each row continues as `row` with its `seq`. */
export const SEQUENCED_ROWS = `MATCH (b:Bank {id: $bankId})
     WITH b, coalesce(b.factSeq, 0) AS base
     SET b.factSeq = base + size($rows)
     WITH base
     UNWIND range(0, size($rows) - 1) AS i
     WITH base + i + 1 AS seq, $rows[i] AS row`;

export interface FactRow {
  fact: Fact;
  /** The fact's vector while the write is staged (kept so reconcile can complete it). */
  vector: Float32Array | null;
}

/**
 * Creates or rewrites facts. New facts take the next positions of the bank's sequence (the store's insertion
 * order, which listing and the queue follow) and their lifecycle; existing ones keep position and lifecycle.
 * Each carries the bank's keyword label (its full-text index).
 */
export function upsertFacts(bankId: string, rows: FactRow[], s: Staging): Statement {
  return cypher(
    `${SEQUENCED_ROWS}
     MERGE (f:Fact {id: row.content.id})
     ON CREATE SET f += row.lifecycle, f.seq = seq
     SET f += row.content, f:$($factLabel), f.pending = $pending, f.pendingSince = CASE WHEN $pending THEN $now ELSE null END,
         f.pendingVector = CASE WHEN $pending THEN row.vector ELSE null END, f.noVector = null`,
    {
      bankId,
      rows: rows.map((r) => ({
        content: factContent(r.fact),
        lifecycle: factLifecycle(r.fact),
        vector: r.vector ? floats(r.vector) : null,
      })),
      factLabel: keywordNames(bankId).factLabel,
      pending: s.pending,
      now: s.now,
    },
  );
}

/** Replaces the MENTIONS relationships of the facts with their current entity lists. */
export function replaceMentions(bankId: string, facts: Fact[]): Statement[] {
  return [
    cypher('MATCH (f:Fact {bankId: $bankId})-[m:MENTIONS]->() WHERE f.id IN $factIds DELETE m', {
      bankId,
      factIds: facts.map((f) => f.id),
    }),
    cypher(
      `UNWIND $mentions AS m
       MATCH (f:Fact {id: m.factId}) WHERE f.bankId = $bankId
       MATCH (e:Entity {id: m.entityId}) WHERE e.bankId = $bankId
       MERGE (f)-[:MENTIONS]->(e)`,
      { bankId, mentions: facts.flatMap((f) => f.entities.map((entityId) => ({ factId: f.id, entityId }))) },
    ),
  ];
}

/** Fact-fact links; a link to a fact that does not exist is dropped; a repeated link keeps the larger weight. */
export function upsertLinks(bankId: string, links: FactLink[]): Statement {
  return cypher(
    `UNWIND $links AS l
     MATCH (a:Fact {id: l.from}) WHERE a.bankId = $bankId
     MATCH (b:Fact {id: l.to}) WHERE b.bankId = $bankId
     MERGE (a)-[r:LINK {type: l.type}]->(b)
     ON CREATE SET r.weight = l.weight, r.bankId = $bankId
     ON MATCH SET r.weight = CASE WHEN l.weight > r.weight THEN l.weight ELSE r.weight END`,
    { bankId, links: links.map((l) => ({ from: l.from, to: l.to, type: l.type, weight: l.weight })) },
  );
}

/** Makes a staged write visible: its facts, its chunks and the document's new hash. */
export function activate(
  bankId: string,
  factIds: string[],
  chunkIds: string[],
  document: { id: string; hash: string } | null,
): Statement[] {
  const out = [
    cypher(
      `UNWIND $factIds AS id MATCH (f:Fact {id: id}) WHERE f.bankId = $bankId
       SET f.pending = false REMOVE f.pendingSince, f.pendingVector`,
      { bankId, factIds },
    ),
    cypher(
      `UNWIND $chunkIds AS id MATCH (c:Chunk {id: id}) WHERE c.bankId = $bankId
       SET c.pending = false REMOVE c.pendingSince`,
      { bankId, chunkIds },
    ),
  ];
  if (document)
    out.push(
      cypher(
        `MATCH (d:Document {bankId: $bankId, id: $id}) WHERE d.pendingHash = $hash
         SET d.contentHash = d.pendingHash REMOVE d.pendingHash, d.pendingSince`,
        { bankId, id: document.id, hash: document.hash },
      ),
    );
  return out;
}

/** Entities no fact mentions any more go, with their keys (keys first, while the entities can still be read). */
export function pruneEntities(bankId: string): Statement[] {
  return [
    cypher(
      `MATCH (k:EntityKey {bankId: $bankId})
       WHERE NOT EXISTS { MATCH (e:Entity {id: k.entityId}) WHERE EXISTS { (e)<-[:MENTIONS]-(:Fact) } }
       DELETE k`,
      { bankId },
    ),
    cypher('MATCH (e:Entity {bankId: $bankId}) WHERE NOT EXISTS { (e)<-[:MENTIONS]-(:Fact) } DETACH DELETE e', { bankId }),
  ];
}

/** What a vector's Qdrant payload needs of each fact (staged or not), for facts of the bank. */
export const pointSources = (bankId: string, ids: string[]): Statement =>
  cypher(
    `MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId
     RETURN f.id AS id, f.bankId AS bankId, f.kind AS kind, f.tags AS tags, f.createdAt AS createdAt`,
    { bankId, ids },
  );

/** Stages vectors of existing facts: kept on the fact until Qdrant has them (reconcile finishes a crashed write). */
export const stageVectors = (bankId: string, vectors: Array<{ id: string; vector: Float32Array }>, now: string): Statement =>
  cypher(
    `UNWIND $rows AS r MATCH (f:Fact {id: r.id}) WHERE f.bankId = $bankId
     SET f.pendingVector = r.vector, f.pendingSince = $now REMOVE f.noVector`,
    { bankId, rows: vectors.map((v) => ({ id: v.id, vector: floats(v.vector) })), now },
  );

/** The staged vectors of these facts reached Qdrant: facts staged by a write become visible. */
export const activateVectors = (bankId: string, ids: string[]): Statement =>
  cypher(
    `UNWIND $ids AS id MATCH (f:Fact {id: id}) WHERE f.bankId = $bankId
     SET f.pending = false REMOVE f.pendingVector, f.pendingSince, f.needsEmbedding`,
    { bankId, ids },
  );

/** After an embedder change, staged vectors of the old embedder are worthless. */
export const dropStagedVectors = (bankId: string): Statement =>
  cypher('MATCH (f:Fact {bankId: $bankId}) WHERE f.pendingVector IS NOT NULL REMOVE f.pendingVector', { bankId });
