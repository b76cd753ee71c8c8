// The offline extractor (default with no LLM): sentence splitting, first person resolved to the speaker,
// entity detection (compromise plus capitalised names), time expressions read from the item's timestamp,
// and causality marked by a sentence that starts "So ...", "Therefore ...", "As a result ...".
import * as chrono from 'chrono-node';
import { hasUnresolvedYou, toThirdPerson } from '../text/person.ts';
import { parseTimeExpressions } from '../text/time-expressions.ts';
import { contentWords, isStopword } from '../text/words.ts';
import { typedNames } from './named-entities.ts';
import type { ExtractInput, ExtractedEntity, ExtractedFact, Extractor } from './extractor.ts';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Sentences with their spans; fragments without content words are merged into a neighbour. */
export function splitSentences(text: string): Array<{ text: string; start: number; end: number }> {
  const raw: Array<{ text: string; start: number; end: number }> = [];
  for (const s of segmenter.segment(text)) {
    const trimmed = s.segment.trim();
    if (!trimmed) continue;
    const start = s.index + s.segment.indexOf(trimmed);
    raw.push({ text: trimmed, start, end: start + trimmed.length });
  }
  const out: typeof raw = [];
  for (const s of raw) {
    const prev = out[out.length - 1];
    if (prev && contentWords(s.text).length < 2) {
      prev.end = s.end;
      prev.text = text.slice(prev.start, prev.end);
    } else out.push({ ...s });
  }
  if (out.length > 1 && contentWords(out[0].text).length < 2) {
    out[1].start = out[0].start;
    out[1].text = text.slice(out[1].start, out[1].end);
    out.shift();
  }
  return out;
}

const CAUSAL_START = /^(so|therefore|thus|hence|as a result|that['’]s why|because of (this|that))\b/i;

/** isTimeWord's answers by name: the same names (the speaker's above all) come back in sentence after sentence. */
const timeWords = new Map<string, boolean>();
const TIME_WORDS_KEPT = 10_000;

/** Months, weekdays and other names of times ("June", "Easter", "Monday") are times, not entities. */
function isTimeWord(name: string): boolean {
  const known = timeWords.get(name);
  if (known !== undefined) return known;
  const found = chrono.parse(name);
  const answer = found.length > 0 && found[0].text.length >= name.length - 1;
  if (timeWords.size >= TIME_WORDS_KEPT) timeWords.clear();
  timeWords.set(name, answer);
  return answer;
}

function cleanName(name: string): string {
  return name.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/['’]s$/, '').trim();
}

function entitiesOf(sentence: string, speaker: string | null): ExtractedEntity[] {
  const found = new Map<string, ExtractedEntity>();
  const add = (name: string, type: string | null): void => {
    // "sister Anna" -> "Anna": relation words before a name are not part of it.
    const clean = cleanName(name).replace(/^(?:\p{Ll}[\p{L}'’-]*\s+)+(?=\p{Lu})/u, '');
    if (clean.length < 2 || isStopword(clean) || isTimeWord(clean)) return;
    const key = clean.toLowerCase();
    const existing = found.get(key);
    if (!existing || (existing.type === null && type)) found.set(key, { name: clean, type });
  };
  if (speaker) add(speaker, 'person');
  for (const n of typedNames(sentence)) add(n.name, n.type);
  // Capitalised words not at the start of the sentence: names compromise did not type.
  for (const m of sentence.matchAll(/(?<=[\p{L}\p{N},;:]\s+)(\p{Lu}[\p{L}\p{N}’'-]*(?:\s+\p{Lu}[\p{L}\p{N}’'-]*)*)/gu)) add(m[1], null);
  return [...found.values()];
}

export class OfflineExtractor implements Extractor {
  readonly name = 'offline';

  async extract(input: ExtractInput): Promise<ExtractedFact[]> {
    const reference = new Date(input.timestamp);
    const facts: ExtractedFact[] = [];
    for (const s of splitSentences(input.text)) {
      // First person becomes the speaker; "you" stays as said (see ExtractedFact.addressee).
      const resolved = toThirdPerson(s.text, { speaker: input.speaker });
      const times = parseTimeExpressions(s.text, reference);
      const causedBy = facts.length > 0 && CAUSAL_START.test(s.text) ? [facts.length - 1] : [];
      facts.push({
        text: resolved,
        kind: input.fromAgent ? 'experience' : 'world',
        start: s.start,
        end: s.end,
        occurredStart: times[0]?.start ?? null,
        occurredEnd: times[0]?.end ?? null,
        entities: entitiesOf(s.text, input.speaker),
        causedBy,
        ...(input.addressee && hasUnresolvedYou(resolved) ? { addressee: input.addressee } : {}),
      });
    }
    return facts;
  }
}
