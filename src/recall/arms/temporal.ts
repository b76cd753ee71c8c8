// The temporal arm: time expressions in the query ("last June", "two weeks ago"), read relative to the
// query time, become ranges. Facts whose occurred or mentioned time falls in a range score 1, facts near it
// less the further away they are (always below those in it); among equally close facts the ones nearer the
// query in meaning rank first. Candidates are the facts the store finds in (a margin around) each range, and
// the other arms' hits. A question after a time with no range of its own ("When did ...?") is answered by
// dated facts: the arm then ranks the other arms' best facts that carry an occurred time.
// A query that names sessions ("our first session", "last time", "sessions 2 through 4"; recall/sessions.ts) is
// answered from them: every fact of those sessions scores 1 scaled by its nearness to the query in meaning, the
// candidates being the other arms' hits in those sessions and facts the store reads from each of them.
import { DAY_MS, type Fact, cosine } from '../../core/index.ts';
import type { FactFacets, Scored } from '../../store/index.ts';
import { parseTimeExpressions } from '../../text/index.ts';
import { matchesFilter } from '../filter.ts';
import { inSessions, type SessionScope } from '../sessions.ts';
import { type ArmContext, type ArmOutput, topHits } from './context.ts';
import { seedsOf } from './seeds.ts';

export interface Window {
  start: number;
  end: number;
  /** How far outside the range a fact still counts as near: half the range's length, at least a day. */
  margin: number;
}

/** Facts further outside a range than this many margins are not near it. */
const MAX_MARGINS = 2;
/** The most a fact outside a range scores for being near it. */
const NEAR = 0.5;

/**
 * 1 when [a, b] overlaps the window; outside it at most NEAR, decaying with the gap (e^-1 at one margin), and 0
 * beyond MAX_MARGINS. With relevance weighing at most half of the score, a fact in the range always ranks above one near it.
 */
export function proximity(a: number, b: number, w: Window): number {
  const gap = a > w.end ? a - w.end : b < w.start ? w.start - b : 0;
  if (gap === 0) return 1;
  if (gap > MAX_MARGINS * w.margin) return 0;
  return NEAR * Math.exp(-gap / w.margin);
}

/** How near a fact's times (occurred span, and when it was mentioned) come to any window. */
export function factProximity(f: Pick<Fact, 'mentionedAt' | 'occurredStart' | 'occurredEnd'>, windows: Window[]): number {
  const spans: Array<[number, number]> = [[Date.parse(f.mentionedAt), Date.parse(f.mentionedAt)]];
  if (f.occurredStart) spans.push([Date.parse(f.occurredStart), Date.parse(f.occurredEnd ?? f.occurredStart)]);
  let best = 0;
  for (const w of windows) for (const [a, b] of spans) if (!Number.isNaN(a) && !Number.isNaN(b)) best = Math.max(best, proximity(a, b, w));
  return best;
}

export async function temporalArm(ctx: ArmContext, queryVector: Promise<Float32Array>, seedLists: Promise<Scored[][]>): Promise<ArmOutput> {
  const { store, bankId, request } = ctx;
  const k = request.settings.candidatesPerArm;
  const scope = (await ctx.sessions) ?? null;
  if (scope?.ids.size) return sessionFacts(ctx, scope, queryVector, seedLists);
  // Words read as sessions are not times ("sessions 2 through 4" is not 2 to 4 o'clock).
  const ranges = parseTimeExpressions(request.query, request.queryTime).filter(
    (r) => !scope?.expressions.some((e) => r.index < e.index + e.text.length && r.index + r.text.length > e.index),
  );
  if (ranges.length === 0) return asksWhen(request.query) ? datedSeeds(ctx, await seedLists) : { hits: [], detail: { ranges: [] } };
  const windows: Window[] = ranges.map((r) => {
    const start = Date.parse(r.start);
    const end = Date.parse(r.end);
    return { start, end, margin: Math.max((end - start) / 2, DAY_MS) };
  });

  const found = await Promise.all(
    windows.map((w) =>
      store.factsInTimeRange(
        bankId,
        new Date(w.start - MAX_MARGINS * w.margin).toISOString(),
        new Date(w.end + MAX_MARGINS * w.margin).toISOString(),
        k * 2,
        request.filter,
      ),
    ),
  );
  const candidates = new Map<string, FactFacets>();
  for (const list of found) for (const f of list) candidates.set(f.id, f);
  const seedIds = [...new Set((await seedLists).flatMap((l) => l.slice(0, k).map((h) => h.id)))].filter((id) => !candidates.has(id));
  for (const f of await ctx.facts.facets(seedIds, false)) if (matchesFilter(f, request.filter)) candidates.set(f.id, f);

  const near = new Map<string, number>();
  for (const f of candidates.values()) {
    const p = factProximity(f, windows);
    if (p > 0) near.set(f.id, p);
  }
  const [vector, vectors] = await Promise.all([queryVector, store.getVectors(bankId, [...near.keys()])]);
  const scores = new Map<string, number>();
  for (const [id, p] of near) {
    const v = vectors.get(id);
    const similarity = v ? Math.max(0, cosine(vector, v)) : 0;
    scores.set(id, p * (0.5 + 0.5 * similarity));
  }
  return {
    hits: topHits(scores, k),
    detail: { ranges: ranges.map((r) => ({ text: r.text, start: r.start, end: r.end })), candidates: candidates.size, near: near.size },
  };
}

/** Sessions read from the store at most (the latest of those named); beyond, the other arms' hits in them count. */
const MAX_SESSIONS_READ = 50;

/** The facts of the named sessions, the nearest to the query in meaning first. */
async function sessionFacts(
  ctx: ArmContext,
  scope: SessionScope,
  queryVector: Promise<Float32Array>,
  seedLists: Promise<Scored[][]>,
): Promise<ArmOutput> {
  const { store, bankId, request } = ctx;
  const k = request.settings.candidatesPerArm;
  const read = scope.sessions.slice(-MAX_SESSIONS_READ).map((s) => s.id);
  const [stored, seeds] = await Promise.all([
    store.factsOfSessions(bankId, read, Math.max(1, Math.ceil((k * 2) / read.length)), request.filter),
    seedLists,
  ]);
  const candidates = new Map(stored.map((f) => [f.id, f]));
  const seedIds = [...new Set(seeds.flatMap((l) => l.slice(0, k).map((h) => h.id)))].filter((id) => !candidates.has(id));
  for (const f of await ctx.facts.get(seedIds)) if (inSessions(f, scope.ids) && matchesFilter(f, request.filter)) candidates.set(f.id, f);
  const [vector, vectors] = await Promise.all([queryVector, store.getVectors(bankId, [...candidates.keys()])]);
  const scores = new Map<string, number>();
  for (const id of candidates.keys()) {
    const v = vectors.get(id);
    scores.set(id, 0.5 + 0.5 * (v ? Math.max(0, cosine(vector, v)) : 0));
  }
  return {
    hits: topHits(scores, k),
    detail: {
      ranges: [],
      sessions: scope.sessions.map((s) => ({ id: s.id, ordinal: s.ordinal })),
      expressions: scope.expressions.map((e) => e.text),
      candidates: candidates.size,
    },
  };
}

/** A question after a time ("When did ...", "what year", "how long ago") with no range of its own. */
const WHEN = /\b(when|what (year|month|day|date|time)|which (year|month|day|date)|how long ago|since when)\b/i;
export const asksWhen = (query: string): boolean => WHEN.test(query);

/** For a question after a time: the other arms' best facts that carry an occurred time, in their fused order. */
async function datedSeeds(ctx: ArmContext, seedLists: Scored[][]): Promise<ArmOutput> {
  const { request } = ctx;
  const seeds = seedsOf(seedLists, request.settings.candidatesPerArm);
  const facts = await ctx.facts.facets([...seeds.keys()], false);
  const scores = new Map<string, number>();
  for (const f of facts) if (f.occurredStart && matchesFilter(f, request.filter)) scores.set(f.id, seeds.get(f.id) ?? 0);
  return { hits: topHits(scores, request.settings.candidatesPerArm), detail: { ranges: [], asksWhen: true, dated: scores.size } };
}
