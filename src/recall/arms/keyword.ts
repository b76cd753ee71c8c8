// The keyword arm: BM25 over fact texts, plus BM25 over whole chunks whose score flows to the facts extracted
// from them, plus the documents those chunks belong to. A chunk keeps the context a short fact loses (the rest
// of the turn, the speaker), and a document whose chunks match again and again (a session about the topic)
// makes each of its facts more likely to matter. Every BM25 scale is normalized by its best hit first, so a fact
// scores fact + CHUNK_SHARE x chunk + DOC_SHARE x document, each in [0, 1]. A question asking for a set also
// searches the words nearest the set's (sets.ts): those matches are a ranking of their own, fused beside the arm's.
import type { KeywordHit, Scored } from '../../store/index.ts';
import { longestRun, queryRuns } from '../phrases.ts';
import { type ArmContext, type ArmOutput, chunkMatches, entries, factsOfMatchedChunks, normalized, topHits } from './context.ts';

/** Share of its chunk's (normalized) score each fact receives. */
export const CHUNK_SHARE = 1;
/** Share of its document's (normalized) score each fact already found receives. */
export const DOC_SHARE = 1;

/** How many times more fact matches than it keeps the arm reads, for phrase matches to lift from below. */
const PHRASE_WIDTH = 3;
/** Share of the best BM25 score a fact gains per content word of its longest run of the query's words, beyond one. */
export const PHRASE_SHARE = 0.15;

/** The fact matches re-scored with their phrase matches (a run of two or more of the query's words in order). */
function withPhrases(ctx: ArmContext, hits: KeywordHit[], keep: number): Scored[] {
  if (hits.length === 0) return hits;
  const q = queryRuns(ctx.query.focus);
  const top = hits[0].score;
  // Only the texts, which the search gave: most of these candidates are never read again, and reading them whole
  // costs several times more.
  const rescored = hits.map((h) => {
    const run = h.text !== undefined ? longestRun(q.stems, q.content, h.text) : 0;
    return { id: h.id, score: h.score + (run > 1 ? PHRASE_SHARE * top * (run - 1) : 0) };
  });
  return rescored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, keep);
}

export async function keywordArm(ctx: ArmContext): Promise<ArmOutput> {
  const { store, bankId, request, query } = ctx;
  const { candidatesPerArm } = request.settings;
  const expansion = ctx.expansion ?? [];
  const [wide, chunkHitList, expansionHits] = await Promise.all([
    store.keywords.searchFacts(bankId, query.focus, candidatesPerArm * PHRASE_WIDTH, request.filter, { texts: true }),
    chunkMatches(ctx),
    expansion.length ? store.keywords.searchFacts(bankId, expansion.join(' '), candidatesPerArm, request.filter) : [],
  ]);
  const factHits = withPhrases(ctx, wide, candidatesPerArm);
  const scores = normalized(entries(factHits));
  const chunkScores = normalized(entries(chunkHitList));
  const docOfChunk = new Map(chunkHitList.map((h) => [h.id, h.documentId]));
  const owned = chunkHitList.length ? await factsOfMatchedChunks(ctx) : [];
  for (const { factId, chunkId } of owned) scores.set(factId, (scores.get(factId) ?? 0) + CHUNK_SHARE * (chunkScores.get(chunkId) ?? 0));

  // Documents score the sum of their matching chunks' scores; facts found above get their document's share.
  const docRaw = new Map<string, number>();
  for (const [id, s] of chunkScores) {
    const doc = docOfChunk.get(id);
    if (doc !== undefined) docRaw.set(doc, (docRaw.get(doc) ?? 0) + s);
  }
  const docScores = normalized(docRaw);
  if (docScores.size) {
    const docOfFact = new Map(owned.map((o) => [o.factId, docOfChunk.get(o.chunkId)]));
    const unplaced = factHits.map((h) => h.id).filter((id) => !docOfFact.has(id));
    for (const f of await ctx.facts.facets(unplaced, false)) docOfFact.set(f.id, f.source?.documentId);
    for (const [id, score] of scores) {
      const doc = docOfFact.get(id);
      if (doc !== undefined) scores.set(id, score + DOC_SHARE * (docScores.get(doc) ?? 0));
    }
  }
  return {
    hits: topHits(scores, candidatesPerArm),
    ownHits: factHits,
    ...(expansion.length ? { expansionHits } : {}),
    detail: {
      factMatches: factHits.length,
      chunkMatches: chunkHitList.length,
      factsOfChunks: owned.length,
      documents: docScores.size,
      ...(expansion.length ? { expansion, expansionMatches: expansionHits.length } : {}),
    },
  };
}
