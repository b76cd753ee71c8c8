// The passage arm ranks source passages (the chunks facts were read from: a message, or a section of a long one)
// and answers with their facts. A passage that matches the query's words scores by its BM25 match plus the best
// semantic and keyword matches among its facts (a strong fact raises its passage), so a message whose sentences each carry part of the answer
// ranks where no single sentence would; the facts of the best passages then come out in passage order, each
// passage giving its best-matching few, so one long message cannot fill the arm's list.
import { type ArmContext, type ArmOutput, chunkMatches, entries, factsOfMatchedChunks, normalized, topHits } from './context.ts';

/** Facts a passage contributes at most. */
const FACTS_PER_PASSAGE = 3;
/** Share of a fact's own (normalized) match added to its passage's score: orders facts within a passage. */
const OWN_SHARE = 0.1;

/** Weights, beside a passage's own BM25 (each scale normalized by its best hit), of its best fact matches. */
export interface PassageWeights {
  passageSemantic: number;
  passageFact: number;
}

export async function passageArm(
  ctx: ArmContext,
  seedArms: Promise<[semantic: ArmOutput, keyword: ArmOutput]>,
  weights: PassageWeights,
): Promise<ArmOutput> {
  const { request } = ctx;
  const { candidatesPerArm } = request.settings;
  const [chunkList, [semantic, keyword]] = await Promise.all([chunkMatches(ctx), seedArms]);
  const passage = normalized(entries(chunkList));
  const sem = normalized(entries(semantic.hits));
  const kw = normalized(entries(keyword.hits));
  // A fact's match: its semantic and keyword scores (the keyword one includes what its passage's match gave it).
  const own = new Map<string, number>();
  for (const [id, s] of sem) own.set(id, s);
  for (const [id, s] of kw) own.set(id, (own.get(id) ?? 0) + s);
  // Facts that matched on their own words or meaning, not only through their passage.
  const matchedAlone = new Set([
    ...[...sem].filter(([, s]) => s > 0).map(([id]) => id),
    ...(keyword.ownHits ?? keyword.hits).map((h) => h.id),
  ]);

  // A strong fact raises its passage (only the matching passages are scored: the facts of those are all it reads).
  const ofChunks = await factsOfMatchedChunks(ctx);
  const bestSem = new Map<string, number>();
  const bestKw = new Map<string, number>();
  for (const { factId, chunkId } of ofChunks) {
    if (!own.has(factId)) continue;
    bestSem.set(chunkId, Math.max(bestSem.get(chunkId) ?? 0, sem.get(factId) ?? 0));
    bestKw.set(chunkId, Math.max(bestKw.get(chunkId) ?? 0, kw.get(factId) ?? 0));
  }
  // Only passages that match on their own words: one found through a single fact alone is that fact again, which
  // the semantic and keyword arms already rank.
  const scores = new Map<string, number>();
  for (const id of passage.keys())
    scores.set(id, (passage.get(id) ?? 0) + weights.passageSemantic * (bestSem.get(id) ?? 0) + weights.passageFact * (bestKw.get(id) ?? 0));
  const passages = topHits(scores, Math.ceil(candidatesPerArm / FACTS_PER_PASSAGE));
  if (!passages.length) return { hits: [], detail: { passages: 0, chunkMatches: chunkList.length } };

  // The best passages answer with their facts that matched on their own, best first; a passage none of whose facts
  // did answers with its best by what its match gave them, else its first ones (a long message's topic is spread
  // over its sentences).
  const chosen = new Set(passages.map((p) => p.id));
  const owned = ofChunks.filter((o) => chosen.has(o.chunkId));
  const byChunk = new Map<string, string[]>();
  for (const { factId, chunkId } of owned) {
    const list = byChunk.get(chunkId);
    if (list) list.push(factId);
    else byChunk.set(chunkId, [factId]);
  }
  const hits = new Map<string, number>();
  for (const p of passages) {
    const ids = byChunk.get(p.id) ?? [];
    const all = ids.map((id, i) => ({ id, own: own.get(id) ?? 0, i }));
    const alone = all.filter((f) => f.own > 0 && matchedAlone.has(f.id));
    const best = (alone.length ? alone : all).sort((a, b) => b.own - a.own || a.i - b.i).slice(0, FACTS_PER_PASSAGE);
    for (const f of best) hits.set(f.id, p.score + OWN_SHARE * f.own);
  }
  return { hits: topHits(hits, candidatesPerArm), detail: { passages: passages.length, chunkMatches: chunkList.length } };
}
