// Cypher for the recall arms Neo4j serves: BM25 over the bank's own full-text indexes of facts and chunks
// (keyword-names.ts: one index per bank keeps Lucene's statistics per bank; the Lucene query is built from the
// query's content words, each quoted, so no Lucene syntax from input is ever interpreted), the entity graph (facts of entities, fact-fact links), and the check that vector hits from
// Qdrant are visible facts matching the filter.
import { contentWords } from '../../../text/index.ts';
import type { FactFilter, LinkQuery } from '../../ports.ts';
import { factCondition, visible } from '../filter.ts';
import { keywordNames } from '../keyword-names.ts';
import { cypher, int, type Statement } from '../statement.ts';

/** Lucene allows 1024 clauses per query; long queries keep their first distinct words. */
const MAX_TERMS = 256;

const quote = (term: string): string => `"${term.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** A Lucene query that ORs the text's content words (quoted terms), or null when it has none. */
export function luceneQuery(text: string): string | null {
  const terms = [...new Set(contentWords(text))].slice(0, MAX_TERMS);
  return terms.length ? terms.map(quote).join(' OR ') : null;
}

/** BM25 hits among the bank's facts (its index holds only its facts; the bank check stays as a safeguard), with their
 * texts when asked. */
export function searchFacts(bankId: string, query: string, k: number, filter: FactFilter = {}, texts = false): Statement {
  const c = factCondition(filter, 'f');
  return cypher(
    `CALL db.index.fulltext.queryNodes($index, $query) YIELD node AS f, score
     WHERE f.bankId = $bankId AND ${c.text}
     RETURN f.id AS id, score${texts ? ', f.text AS text' : ''} ORDER BY score DESC, id LIMIT $k`,
    { index: keywordNames(bankId).factIndex, bankId, query, ...c.params, k: int(k) },
  );
}

/** BM25 hits among the bank's visible chunks, with their documents. */
export function searchChunks(bankId: string, query: string, k: number): Statement {
  return cypher(
    `CALL db.index.fulltext.queryNodes($index, $query) YIELD node AS c, score
     WHERE c.bankId = $bankId AND ${visible('c')}
     RETURN c.id AS id, score, c.documentId AS documentId ORDER BY score DESC, id LIMIT $k`,
    { index: keywordNames(bankId).chunkIndex, bankId, query, k: int(k) },
  );
}

/** Up to `limitPerEntity` visible facts per entity (oldest first), with the entity each was reached from. */
export const factsOfEntities = (bankId: string, entityIds: string[], limitPerEntity: number): Statement =>
  cypher(
    `UNWIND $entityIds AS entityId
     MATCH (e:Entity {id: entityId}) WHERE e.bankId = $bankId
     MATCH (f:Fact)-[:MENTIONS]->(e) WHERE ${visible('f')}
     WITH e, f ORDER BY f.seq
     WITH e, collect(f.id)[..$limit] AS factIds
     UNWIND factIds AS factId
     RETURN factId, e.id AS entityId`,
    { bankId, entityIds, limit: int(limitPerEntity) },
  );

/** Which of the facts mention which of the entities, by fact id then entity id. */
export const mentionsOf = (bankId: string, factIds: string[], entityIds: string[]): Statement =>
  cypher(
    `MATCH (f:Fact)-[:MENTIONS]->(e:Entity) WHERE f.id IN $factIds AND f.bankId = $bankId AND e.id IN $entityIds
     RETURN f.id AS factId, e.id AS entityId ORDER BY factId, entityId`,
    { bankId, factIds, entityIds },
  );

/** Links touching the facts, each seen from the fact it touches (`from` is always one of the given facts), of the
 * types asked for; with a limit, each fact's strongest that many. */
export const linksOf = (bankId: string, factIds: string[], query: LinkQuery = {}): Statement => {
  const params = { bankId, factIds, types: query.types ? [...query.types] : null };
  const link = `MATCH (a)-[r:LINK]-(b:Fact) WHERE a <> b AND ($types IS NULL OR r.type IN $types) AND ${visible('b')}`;
  return query.limitPerFact === undefined
    ? cypher(
        `MATCH (a:Fact) WHERE a.id IN $factIds AND a.bankId = $bankId
         ${link}
         RETURN a.id AS source, b.id AS target, r.type AS type, r.weight AS weight`,
        params,
      )
    : cypher(
        `MATCH (a:Fact) WHERE a.id IN $factIds AND a.bankId = $bankId
         CALL (a) {
           ${link}
           RETURN b, r ORDER BY r.weight DESC LIMIT $limit
         }
         RETURN a.id AS source, b.id AS target, r.type AS type, r.weight AS weight`,
        { ...params, limit: int(Math.max(0, Math.floor(query.limitPerFact))) },
      );
};

/**
 * Which of the candidate ids are visible facts of the bank that pass the filter and still own their vector (an
 * observation blanked by a deletion does not, even while its old point waits to be deleted).
 */
export function confirmFacts(bankId: string, ids: string[], filter: FactFilter = {}): Statement {
  const c = factCondition(filter, 'f');
  return cypher(
    `MATCH (f:Fact) WHERE f.id IN $ids AND f.bankId = $bankId AND coalesce(f.noVector, false) = false AND ${c.text} RETURN f.id AS id`,
    { bankId, ids, ...c.params },
  );
}
