// Extractive observation text: sentences of the evidence facts themselves, never invented words. An observation
// whose story changed tells the change over time ("A (date). Then B (date). Then C (date)."); otherwise it shows
// its most telling facts (the newest, then the most relevant to the bank's mission), in time order.
import type { EvidenceRole, Fact } from '../core/types.ts';
import { isStopword } from '../text/words.ts';

export interface EvidenceItem {
  fact: Fact;
  role: EvidenceRole;
  /** How much the fact matters to the bank's mission and to the rest of the evidence (higher shows first). */
  weight: number;
}

export interface SynthesisOptions {
  /** Most facts shown in a text without changes (default 3). */
  maxSentences?: number;
  /** Most changes told after the origin (default 3). */
  maxChanges?: number;
  /** Always shown when it is evidence (the newest fact of a refinement). */
  mustShow?: string;
}

/** When a fact was true from: its valid time, else when it happened, else when it was told. */
export const factTime = (f: Fact): string => f.validFrom ?? f.occurredStart ?? f.mentionedAt;

export function byTime(a: Fact, b: Fact): number {
  return factTime(a).localeCompare(factTime(b)) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

const bare = (text: string): string => text.trim().replace(/[.!?;,\s]+$/u, '');
const sentence = (text: string): string => `${bare(text)}.`;

function lowerFirst(text: string): string {
  const first = /^\p{L}+/u.exec(text)?.[0] ?? '';
  return first && isStopword(first) ? text[0].toLowerCase() + text.slice(1) : text;
}

export function synthesize(items: EvidenceItem[], options: SynthesisOptions = {}): string {
  const maxSentences = options.maxSentences ?? 3;
  const maxChanges = options.maxChanges ?? 3;
  const unique = [...new Map(items.map((i) => [i.fact.id, i])).values()];
  if (unique.length === 0) return '';
  const ordered = [...unique].sort((a, b) => byTime(a.fact, b.fact));
  const changes = ordered.filter((i) => i.role === 'contradicts');
  if (changes.length) {
    const origin = ordered.find((i) => i.role === 'supports') ?? changes[0];
    const told = [origin, ...changes.filter((c) => c !== origin && byTime(c.fact, origin.fact) >= 0).slice(-maxChanges)];
    return told.map((i, n) => `${n ? 'Then ' + lowerFirst(bare(i.fact.text)) : bare(i.fact.text)} (${factTime(i.fact).slice(0, 10)}).`).join(' ');
  }
  const ranked = [...unique].sort((a, b) => b.weight - a.weight || byTime(b.fact, a.fact));
  const chosen = new Set<EvidenceItem>();
  const must = options.mustShow ? unique.find((i) => i.fact.id === options.mustShow) : undefined;
  if (must) chosen.add(must);
  for (const i of ranked) {
    if (chosen.size >= maxSentences) break;
    chosen.add(i);
  }
  return ordered.filter((i) => chosen.has(i)).map((i) => sentence(i.fact.text)).join(' ');
}
