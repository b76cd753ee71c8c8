// What recall reads from the query before the arms run: the entities it names, which of them are hubs
// (mentioned in a large share of the bank's facts, like the user or the speakers of a chat), and the query's
// focus: its text without hub names. A hub name matches most facts, so in BM25 and in a word-vector average
// it rewards facts for being short rather than relevant; the similarity arms search with the focus, while
// the graph arm still uses every named entity.
import type { Entity } from '../core/index.ts';
import type { RecallReads } from '../store/index.ts';
import { contentWords, isStopword, nameKey } from '../text/index.ts';
import { withoutMeta } from './meta.ts';

/** An entity mentioned in at least this share of the bank's facts (and at least HUB_MIN_MENTIONS times) is a hub. */
export const HUB_SHARE = 0.05;
export const HUB_MIN_MENTIONS = 10;
/** Longest entity name, in words, looked up from the query. */
const MAX_NAME_WORDS = 4;

export interface QueryAnalysis {
  /** Entities the query names. */
  entities: Entity[];
  /** Ids of the named entities that are hubs. */
  hubs: Set<string>;
  /** The query without hub names and phrases about the conversation itself; the query itself when nothing worth
   * searching would remain. */
  focus: string;
  /** Active facts in the bank (the base of the hub share; 0 when the query names no entity). */
  facts: number;
}

interface Token {
  text: string;
  key: string;
}

const tokensOf = (query: string): Token[] =>
  query
    .split(/\s+/)
    .map((text) => ({ text, key: nameKey(text) }))
    .filter((t) => t.key.length > 0);

/** Candidate entity keys of a query: the nameKey of every run of up to four words that is not all stopwords. */
export function queryEntityKeys(query: string): string[] {
  const tokens = tokensOf(query);
  const keys = new Set<string>();
  for (let i = 0; i < tokens.length; i++)
    for (let n = 1; n <= MAX_NAME_WORDS && i + n <= tokens.length; n++) {
      const run = tokens.slice(i, i + n);
      if (run.every((t) => isStopword(t.key) || t.key.length < 2)) continue;
      keys.add(run.map((t) => t.key).join(' '));
    }
  return [...keys];
}

/** The query with every run of words whose key is one of `keys` left out (longest runs first). */
export function withoutNames(query: string, keys: Set<string>): string {
  const tokens = tokensOf(query);
  const kept: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    let skip = 0;
    for (let n = Math.min(MAX_NAME_WORDS, tokens.length - i); n >= 1 && skip === 0; n--)
      if (
        keys.has(
          tokens
            .slice(i, i + n)
            .map((t) => t.key)
            .join(' '),
        )
      )
        skip = n;
    if (skip) i += skip;
    else kept.push(tokens[i++].text);
  }
  return kept.join(' ');
}

/** How long a bank's fact count is reused for the hub share (it only needs to be roughly right). */
const COUNT_TTL_MS = 60_000;
const counts = new WeakMap<RecallReads, Map<string, { total: number; at: number }>>();

/** Active facts in the bank, asked at most once a minute per store (a store without a kept count counts them). */
async function factCount(store: RecallReads, bankId: string): Promise<number> {
  let perBank = counts.get(store);
  if (!perBank) counts.set(store, (perBank = new Map()));
  const cached = perBank.get(bankId);
  if (cached && Date.now() - cached.at < COUNT_TTL_MS) return cached.total;
  const total = await store.countActiveFacts(bankId);
  perBank.set(bankId, { total, at: Date.now() });
  return total;
}

export async function analyzeQuery(store: RecallReads, bankId: string, query: string): Promise<QueryAnalysis> {
  const entities = await store.graph.entitiesByKeys(bankId, queryEntityKeys(query));
  const hasContent = (text: string): boolean => contentWords(text).length > 0;
  if (entities.length === 0) return { entities, hubs: new Set(), focus: withoutMeta(query, hasContent), facts: 0 };
  const total = await factCount(store, bankId);
  const hubs = entities.filter((e) => e.mentionCount >= Math.max(HUB_SHARE * total, HUB_MIN_MENTIONS));
  const hubKeys = new Set(hubs.flatMap((e) => [e.name, ...e.aliases].map(nameKey)));
  const stripped = hubKeys.size ? withoutNames(query, hubKeys) : query;
  return {
    entities,
    hubs: new Set(hubs.map((e) => e.id)),
    focus: withoutMeta(hasContent(stripped) ? stripped : query, hasContent),
    facts: total,
  };
}
