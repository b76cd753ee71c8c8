// Answers follow their questions: in a conversation the turn after a question is most often its answer, and
// it rarely repeats the question's words ("How long have you been married?" - "5 years already!"), so the arms
// find the question and miss the answer. After fusion, each of the best candidates that asks a question passes a
// share of its score to the facts of the turn told right after it (the next fact in the telling, when it comes
// from another chunk, and the other facts of that chunk). A fixed number of candidates is read, so the work does
// not grow with the bank.
import type { FactFilter, MemoryStore } from '../store/ports.ts';
import type { FactLoader } from './facts.ts';
import type { Fused } from './fusion.ts';

/** A fact that asks something. */
export const asksQuestion = (text: string): boolean => /\?\s*["'”’)]?\s*$/.test(text);

export interface AnswerContext {
  store: MemoryStore;
  bankId: string;
  facts: FactLoader;
  filter: FactFilter;
}

/**
 * Gives the facts of the turn after each question among the top `window` candidates `share` of that question's
 * score (a fact answering several questions takes the largest), and re-sorts. Facts not yet candidates join.
 */
export async function raiseAnswers<N extends string>(ctx: AnswerContext, candidates: Array<Fused<N>>, window: number, share: number): Promise<Array<Fused<N>>> {
  if (share === 0 || candidates.length === 0) return candidates;
  const top = candidates.slice(0, window);
  const questions = (await ctx.facts.get(top.map((c) => c.id))).filter((f) => asksQuestion(f.text));
  if (questions.length === 0) return candidates;
  const scoreOf = new Map(candidates.map((c) => [c.id, c.score]));
  const chunkOf = new Map(questions.map((q) => [q.id, q.source?.chunkId]));
  const links = (await ctx.store.graph.linksOf(ctx.bankId, questions.map((q) => q.id))).filter((l) => l.type === 'temporal' && chunkOf.has(l.from));
  const next = new Map((await ctx.facts.get(links.map((l) => l.to))).map((f) => [f.id, f]));
  // The chunk of each reply, and the score it receives from its question.
  const replyChunks = new Map<string, number>();
  for (const l of links) {
    const reply = next.get(l.to)?.source?.chunkId;
    if (!reply || reply === chunkOf.get(l.from)) continue;
    replyChunks.set(reply, Math.max(replyChunks.get(reply) ?? 0, share * (scoreOf.get(l.from) ?? 0)));
  }
  if (replyChunks.size === 0) return candidates;
  const gain = new Map<string, number>();
  for (const { factId, chunkId } of await ctx.store.factIdsOfChunks(ctx.bankId, [...replyChunks.keys()], ctx.filter))
    gain.set(factId, replyChunks.get(chunkId) ?? 0);
  const out = candidates.map((c, i) => ({ c: gain.has(c.id) ? { ...c, score: c.score + (gain.get(c.id) ?? 0) } : c, i }));
  const known = new Set(candidates.map((c) => c.id));
  for (const [id, g] of gain) if (!known.has(id)) out.push({ c: { id, score: g, ranks: {}, scores: {} }, i: out.length });
  return out.sort((a, b) => b.c.score - a.c.score || a.i - b.i).map((r) => r.c);
}
