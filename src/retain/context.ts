// A fact's context (Fact.context): what its keyword representation reads beside its own text, so a sentence that
// does not repeat its topic ("it now takes 40 seconds") is still found by the words of its passage ("the nightly
// build"). Its vector stays that of its text alone: with the offline embedder (averaged GloVe) a vector of text and
// context measured worse on beam-dev's tuning half (fused R@10 0.539 -> 0.516), the context diluting the sentence;
// the passage arm carries the passage's meaning instead. It holds the heading the fact stands under, the names and identifiers its passage
// mentions, the sentence before it, and the start of the item's own context. The fact's text, the one shown, is unchanged.
import type { Chunk } from '../core/index.ts';
import type { ExtractedFact } from './extractor.ts';

/** Most names and identifiers of the passage a context carries (the first found: a passage names its topic early). */
const MAX_NAMES = 12;
/** Most characters of the item's own context a fact's context takes. */
const ITEM_CONTEXT_CHARS = 200;
/** Longest context kept, in characters (cut at a word). */
const MAX_CHARS = 600;

/** The passage-wide part of its facts' contexts: the names and identifiers its facts mention, in order of mention. */
export function passageNames(facts: readonly ExtractedFact[]): string[] {
  const seen = new Map<string, string>();
  for (const f of facts) {
    for (const name of [...f.entities.map((e) => e.name), ...(f.terms ?? [])]) {
      const key = name.toLowerCase();
      if (!seen.has(key)) seen.set(key, name);
      if (seen.size >= MAX_NAMES) return [...seen.values()];
    }
  }
  return [...seen.values()];
}

/** The context of the chunk's i-th fact, or null when there is nothing to add to its text. */
export function factContext(
  chunk: Pick<Chunk, 'context'>,
  facts: readonly ExtractedFact[],
  i: number,
  names: readonly string[],
): string | null {
  const fact = facts[i];
  const own = fact.text.toLowerCase();
  const parts: string[] = [];
  const add = (part: string | null | undefined): void => {
    const p = part?.trim();
    if (p && !own.includes(p.toLowerCase()) && !parts.includes(p)) parts.push(p);
  };
  add(fact.section);
  for (const name of names) add(name);
  if (i > 0) add(facts[i - 1].text);
  // The item's own context last, and only its start: a long one must not crowd out what is the fact's own.
  add(chunk.context?.slice(0, ITEM_CONTEXT_CHARS));
  if (parts.length === 0) return null;
  const text = parts.join(' · ');
  if (text.length <= MAX_CHARS) return text;
  const cut = text.lastIndexOf(' ', MAX_CHARS);
  return text.slice(0, cut > 0 ? cut : MAX_CHARS);
}
