// Extractive observation text: sentences of the evidence facts themselves, never invented words. An observation
// whose story changed leads with the newest state and then tells how it got there ("C (date). Before that: A
// (date); then B (date)."); otherwise it shows its most telling facts (the newest, then the most relevant to the
// bank's mission), in time order. Opening interjections ("Hi!", "Wow,") are left out, and so are sentences that
// still say "you" to someone the fact could not name, while anything else is left to show.
import type { EvidenceRole, Fact } from '../core/index.ts';
import { hasUnresolvedYou, toThirdPerson, isStopword } from '../text/index.ts';

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

/**
 * When a fact's state last held: the end of when it happened, else when it was told. "Moved to Porto last month"
 * said in February ends in January, after something said on January 15th, so it is the later of the two.
 */
export const storyTime = (f: Pick<Fact, 'occurredStart' | 'occurredEnd' | 'mentionedAt'>): string =>
  f.occurredEnd ?? f.occurredStart ?? f.mentionedAt;

/** Story order: which of two facts tells the later state (supersession and the told changes follow it). */
export function byStoryTime(a: Fact, b: Fact): number {
  return (
    storyTime(a).localeCompare(storyTime(b)) ||
    a.mentionedAt.localeCompare(b.mentionedAt) ||
    a.createdAt.localeCompare(b.createdAt) ||
    a.id.localeCompare(b.id)
  );
}

/** A fact's date as told: its day, or its month when it happened over a whole month ("last month"). */
function dateOf(f: Fact): string {
  const start = factTime(f).slice(0, 10);
  const end = (f.occurredEnd ?? '').slice(0, 10);
  return f.occurredStart && end && end !== start && start.endsWith('-01') && start.slice(0, 7) === end.slice(0, 7)
    ? start.slice(0, 7)
    : start;
}

export function byTime(a: Fact, b: Fact): number {
  return factTime(a).localeCompare(factTime(b)) || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

/** An interjection opening a sentence ("Hi!", "Wow,", "Hey Caroline,", "Actually"): not part of what it states. */
const INTERJECTION =
  /^(?:(?:(?:hi|hey|hello|wow|oh|ooh|yeah|yes|yep|no|ok|okay|well|so|aw+|haha|lol|omg|actually|anyway|guess what|congrats|thanks|sure thing|sure|totally|absolutely)(?:\s+\p{Lu}[\p{L}'’-]*)?\s*[!,.:;-]+|(?:actually|anyway|also|and|but|so|well)(?=\s+\p{Lu}))\s*)+/iu;

/** The part of a fact that states something: opening interjections dropped ("Hi! Maya started ..." -> "Maya started ..."). */
/** Closing exclamations ("... Congrats!", "... Thanks!", "... We got this!") add nothing to what is stated. */
const CLOSING =
  /(?<=[.!?])\s+(?:(?:thanks|thank you)\b[^.!?]*|congrats|congratulations|wow|yay|haha|lol|we got this|you got this|good luck|take care|cheers|keep it up)[!.]*\s*$/i;

export function statedPart(text: string): string {
  const rest = text.trim().replace(INTERJECTION, '').replace(CLOSING, '');
  return rest ? rest[0].toUpperCase() + rest.slice(1) : text.trim();
}

const bare = (text: string): string => statedPart(text).replace(/[.!?;,\s]+$/u, '');

/** A fact as an observation shows it: its "you" named when retain knew whom it meant. */
export function shown(f: Fact): string {
  const addressee = typeof f.metadata.addressee === 'string' ? f.metadata.addressee : null;
  return addressee ? toThirdPerson(f.text, { speaker: null, addressee }) : f.text;
}
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
    const story = [...unique].sort((a, b) => byStoryTime(a.fact, b.fact));
    const origin = story.find((i) => i.role === 'supports') ?? changes[0];
    const later = story.filter((i) => i.role === 'contradicts' && i !== origin && byStoryTime(i.fact, origin.fact) >= 0);
    const told = [origin, ...later.slice(-maxChanges)];
    const dated = (i: EvidenceItem): string => `${bare(shown(i.fact))} (${dateOf(i.fact)})`;
    const newest = told[told.length - 1];
    const earlier = told.slice(0, -1).map((i, n) => (n ? 'then ' : '') + lowerFirst(dated(i)));
    return `${dated(newest)}.${earlier.length ? ` Before that: ${earlier.join('; ')}.` : ''}`;
  }
  // A sentence saying "you" to someone unnamed is shown only when nothing else is left.
  const clear = unique.filter((i) => !hasUnresolvedYou(shown(i.fact)));
  if (clear.length && clear.length < unique.length) return synthesize(clear, options);
  const ranked = [...unique].sort((a, b) => b.weight - a.weight || byTime(b.fact, a.fact));
  const chosen = new Set<EvidenceItem>();
  const must = options.mustShow ? unique.find((i) => i.fact.id === options.mustShow) : undefined;
  if (must) chosen.add(must);
  for (const i of ranked) {
    if (chosen.size >= maxSentences) break;
    chosen.add(i);
  }
  return ordered
    .filter((i) => chosen.has(i))
    .map((i) => sentence(shown(i.fact)))
    .join(' ');
}
