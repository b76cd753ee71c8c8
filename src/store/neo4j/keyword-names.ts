// The schema identifiers of a bank's own full-text indexes (the keyword arm): a label for its facts, one for its
// chunks, and an index over each. Lucene keeps BM25 statistics (document count, average length, document
// frequency) per index, so one index per bank keeps every bank's scores independent of every other bank.
//
// Index and label names cannot be parameters in schema commands (CREATE/DROP INDEX), so these identifiers are
// spliced into Cypher text. They are built from a hash of the bank id, never from the id's characters, and
// checked against [A-Za-z0-9_] before use: no input character can ever reach a statement. A hash cannot be read
// back, so indexes left by a deleted bank are told from live ones by the digests of the banks that exist.
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

/** What the name of every bank's keyword index starts with (and no index of the shared schema does). */
export const KEYWORD_INDEX_PREFIX = 'kw_';

/** A bank's keyword index name, as keywordNames builds it; the digest is the first group. */
const BANK_INDEX = new RegExp(`^${KEYWORD_INDEX_PREFIX}(?:fact|chunk)_([0-9a-f]{${DIGEST_HEX}})$`);

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

/** The bank digest in the name of a bank's keyword index; null for any other name. */
export function indexDigest(name: string): string | null {
  return BANK_INDEX.exec(name)?.[1] ?? null;
}

/**
 * The bank keyword indexes among `indexNames` whose bank is none of `bankIds` (told by digest), once each, in
 * order. A name not built by keywordNames is never one, whatever it starts with.
 */
export function orphanIndexNames(indexNames: Iterable<string>, bankIds: Iterable<string>): string[] {
  const live = new Set([...bankIds].map(bankDigest));
  const orphans = new Set<string>();
  for (const name of indexNames) {
    const digest = indexDigest(name);
    if (digest !== null && !live.has(digest)) orphans.add(name);
  }
  return [...orphans];
}
