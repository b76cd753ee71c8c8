// What follows a candidate in its conversation. The turn after a question is most often its answer, and it
// rarely repeats the question's words ("How long have you been married?" - "5 years already!"); a speaker's
// next turn, after the other side's reply, often goes on with what they said ("I use my influence to help causes
// I believe in." - "Which ones?" - "Youth sports, mostly."). The arms find the first and miss the second, so after
// fusion each of the best candidates passes a share of its score to the facts of those turns: a question to the
// turn right after it, any candidate to its speaker's next turn. Turns are chunks; the walk follows the links
// between facts told one after the other (stored without direction, so the order comes from chunk index and
// position), a bounded number of steps from a fixed number of candidates, so the work does not grow with the bank.
import type { Chunk, Fact } from '../core/types.ts';
import type { FactFilter, MemoryStore } from '../store/ports.ts';
import type { FactLoader } from './facts.ts';
import type { Fused } from './fusion.ts';

/** A fact that asks something. */
export const asksQuestion = (text: string): boolean => /\?\s*["'”’)]?\s*$/.test(text);

/** Most facts walked past from one candidate (its own turn's and the reply's) before giving up. */
const MAX_STEPS = 12;

export interface FollowupContext {
  store: MemoryStore;
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

/** Position of a fact in the telling: its chunk's index, then where it starts in the chunk. */
type Position = { doc: string; chunk: number; start: number };

/** For each fact, the following two turns of its document, found by walking the links between consecutive facts. */
export async function followingTurns(ctx: FollowupContext, from: Fact[]): Promise<Map<string, Following>> {
  const chunks = new Map<string, Chunk>();
  const loadChunks = async (facts: Fact[]): Promise<void> => {
    const missing = [...new Set(facts.map((f) => f.source?.chunkId).filter((id): id is string => id !== undefined && !chunks.has(id)))];
    if (missing.length) for (const c of await ctx.store.getChunks(ctx.bankId, missing)) chunks.set(c.id, c);
  };
  const position = (f: Fact): Position | null => {
    const chunk = f.source ? chunks.get(f.source.chunkId) : undefined;
    return chunk && f.source ? { doc: chunk.documentId, chunk: chunk.index, start: f.source.start } : null;
  };
  const after = (a: Position, b: Position): boolean => a.doc === b.doc && (b.chunk > a.chunk || (b.chunk === a.chunk && b.start > a.start));

  await loadChunks(from);
  const out = new Map<string, Following>();
  // Each walk: where it stands, and the chunks it has entered after the first.
  const walks = new Map<string, { at: Fact; entered: Chunk[] }>();
  for (const f of from) if (position(f)) walks.set(f.id, { at: f, entered: [] });
  for (let step = 0; step < MAX_STEPS && walks.size; step++) {
    const standing = new Map([...walks.values()].map((w) => [w.at.id, w.at]));
    const links = (await ctx.store.graph.linksOf(ctx.bankId, [...standing.keys()])).filter((l) => l.type === 'temporal');
    const neighbours = new Map((await ctx.facts.get(links.map((l) => l.to))).map((f) => [f.id, f]));
    await loadChunks([...neighbours.values()]);
    const nextOf = new Map<string, Fact>();
    for (const l of links) {
      const here = standing.get(l.from);
      const there = neighbours.get(l.to);
      const a = here && position(here);
      const b = there && position(there);
      if (!a || !b || !there || !after(a, b)) continue;
      const best = nextOf.get(l.from);
      const c = best && position(best);
      if (!c || after(b, c)) nextOf.set(l.from, there);
    }
    for (const [id, walk] of walks) {
      const next = nextOf.get(walk.at.id);
      const chunk = next?.source ? chunks.get(next.source.chunkId) : undefined;
      if (!next || !chunk) {
        out.set(id, { reply: walk.entered[0] ?? null, next: walk.entered[1] ?? null });
        walks.delete(id);
        continue;
      }
      if (chunk.id !== walk.at.source?.chunkId) walk.entered.push(chunk);
      walk.at = next;
      if (walk.entered.length === 2) {
        out.set(id, { reply: walk.entered[0], next: walk.entered[1] });
        walks.delete(id);
      }
    }
  }
  for (const [id, walk] of walks) out.set(id, { reply: walk.entered[0] ?? null, next: walk.entered[1] ?? null });
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
    if (turns.next && own !== null && turns.reply.speaker !== own && turns.next.speaker === own) give(turns.next, shares.continuation * score);
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
