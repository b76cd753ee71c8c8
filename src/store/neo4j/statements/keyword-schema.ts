// Cypher for the per-bank full-text indexes of the keyword arm: creating a bank's two indexes (English analyzer:
// lowercasing, stopwords, Porter stemming, as the shared indexes they replace), waiting for them to be online,
// listing and dropping them, and labelling a bank's existing facts and chunks (the upgrade from the shared indexes).
// Schema commands take their names spliced into the text (Neo4j accepts no parameters there); keyword-names.ts
// builds those from a hash and validates them (keywordNames throws on anything but [A-Za-z0-9_]). Everything else travels as parameters.
import { keywordNames, schemaIdentifier } from '../keyword-names.ts';
import { cypher, int, type Statement } from '../statement.ts';

const ANALYZER = "OPTIONS { indexConfig: { `fulltext.analyzer`: 'english' } }";

/** The bank's two CREATE FULLTEXT INDEX commands (idempotent: IF NOT EXISTS): facts by their text and context,
 * chunks by their text after the speaker. */
export function createBankIndexes(bankId: string): Statement[] {
  const n = keywordNames(bankId);
  return [
    cypher(`CREATE FULLTEXT INDEX ${n.factIndex} IF NOT EXISTS FOR (f:${n.factLabel}) ON EACH [f.text, f.context] ${ANALYZER}`),
    cypher(`CREATE FULLTEXT INDEX ${n.chunkIndex} IF NOT EXISTS FOR (c:${n.chunkLabel}) ON EACH [c.searchText] ${ANALYZER}`),
  ];
}

/** Drops one index by name (idempotent: IF EXISTS); the name must pass schemaIdentifier. */
export const dropIndex = (name: string): Statement => cypher(`DROP INDEX ${schemaIdentifier(name)} IF EXISTS`);

/** The bank's two DROP INDEX commands. */
export function dropBankIndexes(bankId: string): Statement[] {
  const n = keywordNames(bankId);
  return [dropIndex(n.factIndex), dropIndex(n.chunkIndex)];
}

/** Names of the full-text indexes starting with `prefix` (the banks' own: KEYWORD_INDEX_PREFIX). */
export const fulltextIndexNames = (prefix: string): Statement =>
  cypher('SHOW FULLTEXT INDEXES YIELD name WHERE name STARTS WITH $prefix RETURN name ORDER BY name', { prefix });

/** Waits until the index is online (fails when it is not within the timeout, or failed to populate). */
export const awaitIndex = (index: string, timeoutSeconds: number): Statement =>
  cypher('CALL db.awaitIndex($index, $timeoutSeconds)', { index, timeoutSeconds: int(timeoutSeconds) });

export const bankIds = (): Statement => cypher('MATCH (b:Bank) RETURN b.id AS id ORDER BY id');

export const bankExists = (bankId: string): Statement => cypher('MATCH (b:Bank {id: $bankId}) RETURN b.id AS id', { bankId });

/**
 * Gives the bank's facts and chunks that lack it their keyword label, committing every `batch` nodes (CALL IN
 * TRANSACTIONS: only in an auto-commit transaction). Facts and chunks written by this version carry it already.
 */
export function labelBankNodes(bankId: string, batch: number): Statement[] {
  const n = keywordNames(bankId);
  const label = (node: 'Fact' | 'Chunk', param: 'factLabel' | 'chunkLabel'): string =>
    `MATCH (x:${node} {bankId: $bankId}) WHERE NOT $${param} IN labels(x)
     CALL (x) { SET x:$($${param}) } IN TRANSACTIONS OF $batch ROWS`;
  return [
    cypher(label('Fact', 'factLabel'), { bankId, factLabel: n.factLabel, batch: int(batch) }),
    cypher(label('Chunk', 'chunkLabel'), { bankId, chunkLabel: n.chunkLabel, batch: int(batch) }),
  ];
}
