// Standing instructions and preferences join every recall they bear on. "Always include financing options when I
// ask about expensive devices" answers how to reply to "What should I know before buying a laptop?", which shares
// no word with it, and a bank holds few such statements (tens, not thousands), so all of them are read (through
// their own index) and compared with the query by meaning; the closest few, when close enough, are placed among
// the first results.
import type { FactFilter, RecallReads, Scored } from '../store/index.ts';
import { STANCES, type Stance } from '../text/index.ts';
import { cosine } from '../core/index.ts';

/** Most standing statements read per recall (the newest are kept when a bank holds more). */
const MAX_READ = 500;

export interface StandingSettings {
  /** Most standing statements placed in a recall's results (0: none). */
  standingLimit: number;
  /** Least cosine similarity to the query for a statement to bear on it. */
  standingMinSimilarity: number;
  /** The rank (0-based) the closest statement takes in the fused list; the next ones follow it. */
  standingRank: number;
}

const ASKERS_OWN = /\b(?:i|i['’](?:m|ve|d|ll)|me|my|mine|we|our|us|you|your)\b/i;

/**
 * Whether standing instructions and preferences bear on the query: a request in the first or second person ("how
 * should I ...", "can you help me ...", "our next meeting"), or one that names no one ("What improvements are in the
 * latest version?"). A question about someone named ("When did Maya move?") is answered from what was said,
 * whatever the asker prefers.
 */
export function bearsOnAsker(query: string, namesAPerson: boolean): boolean {
  return ASKERS_OWN.test(query) || !namesAPerson;
}

/** The bank's standing statements closest to the query vector, best first, each with its similarity. */
export async function standingFor(
  store: RecallReads,
  bankId: string,
  filter: FactFilter,
  query: Float32Array,
  settings: StandingSettings,
): Promise<Scored[]> {
  if (settings.standingLimit <= 0) return [];
  const facts = await store.newestFacts(bankId, { ...filter, stances: [...STANCES], limit: MAX_READ });
  const vectors = await store.getVectors(
    bankId,
    facts.map((f) => f.id),
  );
  const scored: Array<Scored & { stance: Stance | null }> = [];
  for (const f of facts) {
    const v = vectors.get(f.id);
    if (v) scored.push({ id: f.id, score: cosine(query, v), stance: f.stance });
  }
  const close = scored.filter((s) => s.score >= settings.standingMinSimilarity).sort((a, b) => b.score - a.score);
  // The closest of each stance first: an instruction's "when I ask about ..." reads close to many questions, and
  // must not crowd out the one preference that bears on this one.
  const firsts = STANCES.map((st) => close.find((s) => s.stance === st)).filter((s) => s !== undefined);
  const chosen = [...firsts, ...close.filter((s) => !firsts.includes(s))].slice(0, settings.standingLimit);
  return chosen.sort((a, b) => b.score - a.score).map(({ id, score }) => ({ id, score }));
}

/** The fused list with the statements placed from `rank` on (moved up if already present, never moved down). */
export function placeStanding<T extends { id: string; score: number }>(
  fused: T[],
  standing: Scored[],
  rank: number,
  make: (id: string, score: number) => T,
): T[] {
  if (!standing.length) return fused;
  const at = Math.min(rank, fused.length);
  const placed = new Set<string>();
  const out = fused.slice(0, at);
  // Scores that keep the list sorted: just below the one before the place, or just above the first at rank 0.
  const before = out.at(-1)?.score;
  const top = fused[0]?.score ?? 1;
  standing.forEach((s, i) => {
    const existing = fused.findIndex((f) => f.id === s.id);
    if (existing >= 0 && existing < at) return;
    placed.add(s.id);
    const score = before === undefined ? top * (1 + 1e-3 * (standing.length - i)) : before * (1 - 1e-6 * (i + 1));
    out.push(existing >= 0 ? { ...fused[existing], score } : make(s.id, score));
  });
  for (const f of fused.slice(at)) if (!placed.has(f.id)) out.push(f);
  return out;
}
