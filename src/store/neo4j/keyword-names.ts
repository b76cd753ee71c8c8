// The schema identifiers of a bank's own full-text indexes (the keyword arm): a label for its facts, one for its
// chunks, and an index over each. Lucene keeps BM25 statistics (document count, average length, document
// frequency) per index, so one index per bank keeps every bank's scores independent of every other bank.
//
// Index and label names cannot be parameters in schema commands (CREATE/DROP INDEX), so these identifiers are
// spliced into Cypher text. They are built from a hash of the bank id, never from the id's characters, and
// checked against [A-Za-z0-9_] before use: no input character can ever reach a statement.
import { createHash } from 'node:crypto';

export interface KeywordNames {
  /** Label carried by every Fact node of the bank (observations included). */
  factLabel: string;
  /** Label carried by every Chunk node of the bank. */
  chunkLabel: string;
  /** Full-text index over the fact label's `text`. */
  factIndex: string;
  /** Full-text index over the chunk label's `searchText`. */
  chunkIndex: string;
}

/** Hex digits of sha256(bankId) kept: 96 bits, so two banks sharing indexes would take ~2^48 banks. */
const DIGEST_HEX = 24;

const IDENTIFIER = /^[A-Za-z0-9_]+$/;

/** Returns the identifier when it is safe to splice into schema Cypher; throws otherwise. */
export function schemaIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`unsafe schema identifier: ${JSON.stringify(name)}`);
  return name;
}

/** The stable digest naming a bank's keyword schema. */
export const bankDigest = (bankId: string): string => createHash('sha256').update(bankId, 'utf8').digest('hex').slice(0, DIGEST_HEX);

export function keywordNames(bankId: string): KeywordNames {
  const d = bankDigest(bankId);
  return {
    factLabel: schemaIdentifier(`KwFact_${d}`),
    chunkLabel: schemaIdentifier(`KwChunk_${d}`),
    factIndex: schemaIdentifier(`kw_fact_${d}`),
    chunkIndex: schemaIdentifier(`kw_chunk_${d}`),
  };
}
