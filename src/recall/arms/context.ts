// What every recall arm is given (the store, the bank, the resolved request, what the query names) and what it answers: its own
// ranking of fact ids, best first, with whatever it read from the query for the trace.
import type { RecallReads, Scored } from '../../store/index.ts';
import type { FactLoader } from '../facts.ts';
import type { QueryAnalysis } from '../query.ts';
import type { SessionScope } from '../sessions.ts';
import type { ResolvedRequest } from '../types.ts';

export interface ArmContext {
  store: RecallReads;
  bankId: string;
  request: ResolvedRequest;
  query: QueryAnalysis;
  /** Reads facts at most once per request. */
  facts: FactLoader;
  /** The sessions the query names (null: none named). */
  sessions?: Promise<SessionScope | null>;
  /** Words nearest in meaning to the set the query asks for (sets.ts), which the keyword arm also searches. */
  expansion?: string[];
}

export interface ArmOutput {
  /** Fact ids with the arm's score, best first, at most `request.settings.candidatesPerArm`. */
  hits: Scored[];
  /** The facts that matched on their own words, before anything flowed to them from their passage or document
   * (the keyword arm): what the passage arm counts as a passage's matching facts. */
  ownHits?: Scored[];
  /** The keyword arm's matches of `ArmContext.expansion`, best first: fused as a ranking of their own. */
  expansionHits?: Scored[];
  detail?: Record<string, unknown>;
}

/** A read made at most once per request, for the arms that share it (they are given the same context). */
function perRequest<T>(read: (ctx: ArmContext) => Promise<T>): (ctx: ArmContext) => Promise<T> {
  const made = new WeakMap<ArmContext, Promise<T>>();
  return (ctx) => {
    let result = made.get(ctx);
    if (!result) made.set(ctx, (result = read(ctx)));
    return result;
  };
}

/** The passages (chunks) matching the query's words, searched once per request for the arms that read them. */
export const chunkMatches = perRequest((ctx) =>
  ctx.store.keywords.searchChunks(ctx.bankId, ctx.query.focus, ctx.request.settings.chunkHits),
);

/** The facts (under the request's filter) of the passages matching the query's words: read once per request for the
 * keyword arm, which gives them their passage's score, and the passage arm, which ranks passages by their facts. */
export const factsOfMatchedChunks = perRequest(async (ctx): Promise<Array<{ factId: string; chunkId: string }>> => {
  const hits = await chunkMatches(ctx);
  return hits.length
    ? ctx.store.factIdsOfChunks(
        ctx.bankId,
        hits.map((h) => h.id),
        ctx.request.filter,
      )
    : [];
});

/** Sorts a score map into hits, best first (ties by id, so rankings are deterministic), keeping the top `k`. */
export function topHits(scores: Map<string, number>, k: number): Scored[] {
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, k);
}

/** Hits as [id, score] pairs. */
export const entries = (hits: Scored[]): Array<[string, number]> => hits.map((h) => [h.id, h.score]);

/** Scores divided by the best one (BM25 scores of different indexes are not comparable, their ratios are). */
export function normalized(scores: Iterable<[string, number]>): Map<string, number> {
  const list = [...scores];
  const top = list.reduce((m, [, s]) => Math.max(m, s), 0);
  return new Map(list.map(([id, s]) => [id, top > 0 ? s / top : 0]));
}
