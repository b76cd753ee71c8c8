// What follows a candidate in its conversation. The turn after a question is most often its answer, and it
// rarely repeats the question's words ("How long have you been married?" - "5 years already!"); a speaker's
// next turn, after the other side's reply, often goes on with what they said ("I use my influence to help causes
// I believe in." - "Which ones?" - "Youth sports, mostly."). The arms find the first and miss the second, so after
// fusion each of the best candidates passes a share of its score to the facts of those turns: a question to the
// turn right after it, any candidate to its speaker's next turn. Turns are chunks; the turn after a chunk is that
// of the fact linked to the chunk's last fact (links between facts told one after the other are stored without
// direction, so the order comes from the chunks' indexes). Two such steps from a fixed number of candidates: the
// work does not grow with the bank.
import type { Chunk, Fact } from '../core/index.ts';
import type { FactFacets, FactFilter, RecallReads } from '../store/index.ts';
import type { FactLoader } from './facts.ts';
import type { Fused } from './fusion.ts';

/** A fact that asks something. */
export const asksQuestion = (text: string): boolean => /\?\s*["'”’)]?\s*$/.test(text);

export interface FollowupContext {
  store: RecallReads;
  bankId: string;
  facts: FactLoader;
  filter: FactFilter;
}

export interface FollowupShares {
  /** Share of a question's score given to the turn right after it. */
  answer: number;
  /** Share of a candidate's score given to its speaker's next turn (when the turn between is someone else's). */
  continuation: number;
  /** Share of its score a question loses when a reply follows it (asking tells little; the reply tells). */
  questionPenalty: number;
}

/** The two turns after a fact's own: the next chunk in its document, and the one after that (null when none). */
export interface Following {
  reply: Chunk | null;
  next: Chunk | null;
}

/** For each fact, the following two turns of its document, found over the links between consecutive facts. */
export async function followingTurns(ctx: FollowupContext, from: Fact[]): Promise<Map<string, Following>> {
  const chunks = new Map<string, Chunk>();
  const loadChunks = async (ids: string[]): Promise<void> => {
    const missing = [...new Set(ids.filter((id) => !chunks.has(id)))];
    if (missing.length) for (const c of await ctx.store.getChunks(ctx.bankId, missing)) chunks.set(c.id, c);
  };
  const chunkOf = (f: FactFacets | undefined): Chunk | undefined => (f?.source ? chunks.get(f.source.chunkId) : undefined);

  /** The chunk after each chunk: that of the fact told right after the chunk's last fact. */
  const after = async (chunkIds: string[]): Promise<Map<string, Chunk>> => {
    const owned = await ctx.store.factIdsOfChunks(ctx.bankId, chunkIds);
    const last = new Map<string, FactFacets>();
    const ownedFacts = await ctx.facts.facets(
      owned.map((o) => o.factId),
      false,
    );
    for (const f of ownedFacts) {
      const id = f.source?.chunkId;
      const held = id === undefined ? undefined : last.get(id);
      if (id !== undefined && (!held || (f.source?.start ?? 0) > (held.source?.start ?? 0))) last.set(id, f);
    }
    const links = (
      await ctx.store.graph.linksOf(
        ctx.bankId,
        [...last.values()].map((f) => f.id),
        { types: ['temporal'] },
      )
    ).filter((l) => l.type === 'temporal');
    const linked = await ctx.facts.facets(
      links.map((l) => l.to),
      false,
    );
    const neighbours = new Map(linked.map((f) => [f.id, f]));
    await loadChunks([...neighbours.values()].flatMap((f) => (f.source ? [f.source.chunkId] : [])));
    const byLastFact = new Map([...last].map(([chunkId, f]) => [f.id, chunks.get(chunkId)]));
    const next = new Map<string, Chunk>();
    for (const l of links) {
      const here = byLastFact.get(l.from);
      const there = chunkOf(neighbours.get(l.to));
      if (!here || !there || there.documentId !== here.documentId || there.index <= here.index) continue;
      const held = next.get(here.id);
      if (!held || there.index < held.index) next.set(here.id, there);
    }
    return next;
  };

  const fromChunks = [...new Set(from.flatMap((f) => (f.source ? [f.source.chunkId] : [])))];
  await loadChunks(fromChunks);
  const own = fromChunks.filter((id) => chunks.has(id));
  const replies = own.length ? await after(own) : new Map<string, Chunk>();
  const nexts = replies.size ? await after([...new Set([...replies.values()].map((c) => c.id))]) : new Map<string, Chunk>();
  const out = new Map<string, Following>();
  for (const f of from) {
    const reply = f.source ? (replies.get(f.source.chunkId) ?? null) : null;
    out.set(f.id, { reply, next: reply ? (nexts.get(reply.id) ?? null) : null });
  }
  return out;
}

/**
 * Gives the turns following the top `window` candidates their shares of those candidates' scores (a fact reached
 * from several takes the largest), takes its penalty from each question that has a reply, and re-sorts. Facts not
 * yet candidates join.
 */
export async function raiseFollowups<N extends string>(
  ctx: FollowupContext,
  candidates: Array<Fused<N>>,
  window: number,
  shares: FollowupShares,
): Promise<Array<Fused<N>>> {
  if ((shares.answer === 0 && shares.continuation === 0 && shares.questionPenalty === 0) || candidates.length === 0) return candidates;
  const top = await ctx.facts.get(candidates.slice(0, window).map((c) => c.id));
  const scoreOf = new Map(candidates.map((c) => [c.id, c.score]));
  const following = await followingTurns(ctx, top);
  const chunkGain = new Map<string, number>();
  const give = (chunk: Chunk, amount: number): void => {
    if (amount > 0) chunkGain.set(chunk.id, Math.max(chunkGain.get(chunk.id) ?? 0, amount));
  };
  const delta = new Map<string, number>();
  for (const f of top) {
    const turns = following.get(f.id);
    const score = scoreOf.get(f.id) ?? 0;
    if (!turns?.reply) continue;
    if (asksQuestion(f.text)) {
      give(turns.reply, shares.answer * score);
      delta.set(f.id, -shares.questionPenalty * score);
    }
    const own = f.speaker;
    if (turns.next && own !== null && turns.reply.speaker !== own && turns.next.speaker === own)
      give(turns.next, shares.continuation * score);
  }
  if (chunkGain.size)
    for (const { factId, chunkId } of await ctx.store.factIdsOfChunks(ctx.bankId, [...chunkGain.keys()], ctx.filter))
      delta.set(factId, (delta.get(factId) ?? 0) + (chunkGain.get(chunkId) ?? 0));
  if (delta.size === 0) return candidates;
  const out = candidates.map((c, i) => ({ c: delta.has(c.id) ? { ...c, score: c.score + (delta.get(c.id) ?? 0) } : c, i }));
  const known = new Set(candidates.map((c) => c.id));
  for (const [id, d] of delta) if (!known.has(id)) out.push({ c: { id, score: d, ranks: {}, scores: {} }, i: out.length });
  return out.sort((a, b) => b.c.score - a.c.score || a.i - b.i).map((r) => r.c);
}
