// Cypher for the read side of the server store: documents, chunks, facts (by id, paged, by time range, by
// chunk), entities, observations with their evidence and history, links. Staged (pending) facts and chunks are
// never returned.
import type { FactFilter, ListFactsQuery } from '../../ports.ts';
import { factCondition, visible } from '../filter.ts';
import { cypher, int, type Statement } from '../statement.ts';

export const getDocument = (bankId: string, id: string): Statement =>
  cypher('MATCH (d:Document {bankId: $bankId, id: $id}) RETURN d {.*} AS document', { bankId, id });

export const listDocuments = (bankId: string, limit: number, offset: number): Statement =>
  cypher(
    'MATCH (d:Document {bankId: $bankId}) RETURN d {.*} AS document ORDER BY document.createdAt, document.id SKIP $offset LIMIT $limit',
    { bankId, offset: int(offset), limit: int(limit) },
  );

export const listChunks = (bankId: string, documentId: string): Statement =>
  cypher(
    `MATCH (c:Chunk {bankId: $bankId, documentId: $documentId}) WHERE ${visible('c')}
     RETURN c {.*} AS chunk ORDER BY chunk.index`,
    { bankId, documentId },
  );

export const getChunks = (bankId: string, ids: string[]): Statement =>
  cypher(`MATCH (c:Chunk) WHERE c.id IN $ids AND c.bankId = $bankId AND ${visible('c')} RETURN c {.*} AS chunk`, { bankId, ids });

/** Facts (observations included) by id, whatever their status. */
export const getFacts = (bankId: string, ids: string[]): Statement =>
  cypher(`MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId AND ${visible('f')} RETURN f {.*} AS fact`, { bankId, ids });

function listCondition(q: ListFactsQuery): { text: string; params: Record<string, unknown> } {
  const c = factCondition(q, 'f');
  let text = c.text;
  const params: Record<string, unknown> = { ...c.params };
  if (q.documentId) {
    text += ' AND f.documentId = $documentId';
    params.documentId = q.documentId;
  }
  if (q.entityId) {
    text += ' AND $entityId IN f.entityIds';
    params.entityId = q.entityId;
  }
  if (q.session !== undefined) {
    // Through the (bankId, session) index of migration 009.
    text += ' AND f.session = $session';
    params.session = q.session;
  }
  return { text, params };
}

export function countFacts(bankId: string, q: ListFactsQuery): Statement {
  const c = listCondition(q);
  return cypher(`MATCH (f:Fact {bankId: $bankId}) WHERE ${c.text} RETURN count(f) AS total`, { bankId, ...c.params });
}

/** The bank's active facts, counted (the total of a listing without filters). */
export function countActiveFacts(bankId: string): Statement {
  return countFacts(bankId, { limit: 0, offset: 0 });
}

export function listFacts(bankId: string, q: ListFactsQuery): Statement {
  const c = listCondition(q);
  return cypher(
    `MATCH (f:Fact {bankId: $bankId}) WHERE ${c.text}
     WITH f ORDER BY f.seq SKIP $offset LIMIT $limit
     RETURN f {.*} AS fact`,
    { bankId, ...c.params, offset: int(q.offset), limit: int(q.limit) },
  );
}

/** The newest facts under the filter (of one entity: through its MENTIONS, not a scan of the bank), newest first. */
export function newestFacts(bankId: string, q: FactFilter & { entityId?: string; limit: number }): Statement {
  const c = factCondition(q, 'f');
  const match = q.entityId ? 'MATCH (:Entity {id: $entityId})<-[:MENTIONS]-(f:Fact {bankId: $bankId})' : 'MATCH (f:Fact {bankId: $bankId})';
  return cypher(
    `${match} WHERE ${c.text}
     WITH f ORDER BY f.seq DESC LIMIT $limit
     RETURN f {.*} AS fact`,
    { bankId, ...c.params, ...(q.entityId ? { entityId: q.entityId } : {}), limit: int(q.limit) },
  );
}

/**
 * Facts whose span (occurred, or else mentioned) overlaps [start, end], nearest to the middle of the range first.
 * Times are compared as epoch milliseconds (the range indexes of migration 004).
 */
export function factsInTimeRange(bankId: string, start: string, end: string, limit: number, filter: FactFilter = {}): Statement {
  const c = factCondition(filter, 'f');
  const startMs = Date.parse(start);
  const endMs = Date.parse(end);
  return cypher(
    `MATCH (f:Fact {bankId: $bankId})
     WHERE f.timeStartMs <= $endMs AND f.timeEndMs >= $startMs AND ${c.text}
     WITH f ORDER BY abs(f.timeStartMs - $midMs), f.seq LIMIT $limit
     RETURN f {.*} AS fact`,
    { bankId, ...c.params, startMs, endMs, midMs: (startMs + endMs) / 2, limit: int(limit) },
  );
}

export function factIdsOfChunks(bankId: string, chunkIds: string[], filter: FactFilter = {}): Statement {
  const c = factCondition(filter, 'f');
  return cypher(
    `MATCH (f:Fact {bankId: $bankId}) WHERE f.chunkId IN $chunkIds AND ${c.text} RETURN f.id AS factId, f.chunkId AS chunkId ORDER BY f.seq`,
    { bankId, chunkIds, ...c.params },
  );
}

/**
 * Per session of the bank: the earliest and latest timestamp of its chunks, and when its first document was written
 * (the tie-break between sessions that start together). Through the (bankId, session) index of migration 009.
 */
export const sessions = (bankId: string): Statement =>
  cypher(
    `MATCH (c:Chunk {bankId: $bankId}) WHERE c.session IS NOT NULL AND ${visible('c')}
     WITH c.session AS id, c.documentId AS documentId, min(c.timestamp) AS start, max(c.timestamp) AS end
     OPTIONAL MATCH (d:Document {bankId: $bankId, id: documentId})
     RETURN id, min(start) AS start, max(end) AS end, min(d.createdAt) AS retained`,
    { bankId },
  );

/** Up to `limit` facts of each named session (under the filter), in the order they were stored. */
export function factsOfSessions(bankId: string, sessionIds: string[], limit: number, filter: FactFilter = {}): Statement {
  const c = factCondition(filter, 'f');
  return cypher(
    `UNWIND $sessionIds AS s
     CALL (s) {
       MATCH (f:Fact {bankId: $bankId, session: s}) WHERE ${c.text}
       RETURN f ORDER BY f.seq LIMIT $limit
     }
     RETURN f {.*} AS fact`,
    { bankId, sessionIds, ...c.params, limit: int(limit) },
  );
}

export const getEntities = (bankId: string, ids: string[]): Statement =>
  cypher('MATCH (e:Entity) WHERE e.id IN $ids AND e.bankId = $bankId RETURN e {.*} AS entity', { bankId, ids });

export const listEntities = (bankId: string, limit: number, offset: number): Statement =>
  cypher(
    'MATCH (e:Entity {bankId: $bankId}) RETURN e {.*} AS entity ORDER BY entity.mentionCount DESC, entity.id SKIP $offset LIMIT $limit',
    { bankId, offset: int(offset), limit: int(limit) },
  );

/**
 * The co-mentions among entities given in coMentionOrder (store/co-mentions.ts): for each but the last, the active
 * facts that mention it (through its MENTIONS) and, by their entity lists, a later one; one row per entity and later
 * one, with how many facts. The last (most mentioned) entity's facts are never expanded.
 */
export const coMentions = (bankId: string, ordered: string[]): Statement =>
  cypher(
    `UNWIND range(0, size($ordered) - 2) AS i
     CALL (i) {
       MATCH (a:Entity {id: $ordered[i]}) WHERE a.bankId = $bankId
       MATCH (f:Fact)-[:MENTIONS]->(a) WHERE f.bankId = $bankId AND f.status = 'active' AND ${visible('f')}
       UNWIND [x IN f.entityIds WHERE x IN $ordered[i + 1..]] AS other
       RETURN a.id AS one, other, count(DISTINCT f) AS weight
     }
     RETURN one, other, weight`,
    { bankId, ordered },
  );

/** Entities found under any of the normalized keys. */
export const entitiesByKeys = (bankId: string, keys: string[]): Statement =>
  cypher(
    `MATCH (k:EntityKey {bankId: $bankId}) WHERE k.key IN $keys
     MATCH (e:Entity {id: k.entityId})
     RETURN DISTINCT e {.*} AS entity`,
    { bankId, keys },
  );

export const getObservations = (bankId: string, ids: string[]): Statement =>
  cypher(
    `MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId AND f.kind = 'observation' AND ${visible('f')}
     RETURN f {.*} AS fact, size([(f)-[r:EVIDENCE]->(:Fact) WHERE r.role = 'supports' | r]) AS proofCount`,
    { bankId, ids },
  );

export const evidenceOf = (bankId: string, observationId: string): Statement =>
  cypher(
    `MATCH (o:Fact {id: $id})-[r:EVIDENCE]->(f:Fact) WHERE o.bankId = $bankId
     RETURN o.id AS observationId, f.id AS factId, r.role AS role, r.createdAt AS createdAt ORDER BY createdAt, factId`,
    { bankId, id: observationId },
  );

export const observationsOfFact = (bankId: string, factId: string): Statement =>
  cypher(
    `MATCH (o:Fact)-[r:EVIDENCE]->(f:Fact {id: $id}) WHERE f.bankId = $bankId
     RETURN o.id AS observationId, f.id AS factId, r.role AS role, r.createdAt AS createdAt ORDER BY createdAt, observationId`,
    { bankId, id: factId },
  );

export const historyOf = (bankId: string, observationId: string): Statement =>
  cypher('MATCH (r:Revision {bankId: $bankId, observationId: $id}) RETURN r {.*} AS revision ORDER BY revision.at, revision.seq', {
    bankId,
    id: observationId,
  });

/** Links of the bank as stored, in a stable order for paging. */
export const listLinks = (bankId: string, limit: number, offset: number): Statement =>
  cypher(
    `MATCH (a:Fact {bankId: $bankId})-[r:LINK]->(b:Fact)
     RETURN a.id AS source, b.id AS target, r.type AS type, r.weight AS weight ORDER BY source, target, type SKIP $offset LIMIT $limit`,
    { bankId, offset: int(offset), limit: int(limit) },
  );
