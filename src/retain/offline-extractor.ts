// The offline extractor (default with no LLM): the chunk's units (sentences, list items, table rows, error lines;
// code is never one, see units.ts), first person resolved to the speaker, entity detection (compromise plus
// capitalised and technical names; never in code), time expressions read from the item's timestamp, keyword terms
// from code, and causality marked by a sentence that starts "So ...", "Therefore ...", "As a result ...".
import * as chrono from 'chrono-node';
import {
  hasUnresolvedYou,
  toThirdPerson,
  parseTimeExpressions,
  type TimeRange,
  isCodeFragment,
  isFileName,
  isLibraryName,
  isShapedName,
  shapedNames,
  toolsInProse,
  isStopword,
} from '../text/index.ts';
import { typedNames } from './named-entities.ts';
import { unitsOf, type Unit } from './units.ts';
import type { ExtractInput, ExtractedEntity, ExtractedFact, Extractor } from './extractor.ts';

const CAUSAL_START = /^(so|therefore|thus|hence|as a result|that['’]s why|because of (this|that))\b/i;

/** isTimeWord's answers by name: the same names (the speaker's above all) come back in sentence after sentence. */
const timeWords = new Map<string, boolean>();
const TIME_WORDS_KEPT = 10_000;

/**
 * The halves of the clock ("at 3 PM", "9 a.m."): a time of day, never a name. chrono reads them only after a clock
 * time, so alone they are told here; without this "PM" was an entity (and, by its first word, joined
 * "PM.Review"). In a run of capitalised words the marker opens ("at 7 PM Friday"), it is left out of the name.
 */
const MERIDIEM = /^[ap]\.?m\.?$/i;
const MERIDIEM_FIRST = /^[ap]\.?m\.?\s+/i;

/** Months, weekdays and other names of times ("June", "Easter", "Monday") are times, not entities. */
function isTimeWord(name: string): boolean {
  if (MERIDIEM.test(name)) return true;
  const known = timeWords.get(name);
  if (known !== undefined) return known;
  const found = chrono.parse(name);
  const answer = found.length > 0 && found[0].text.length >= name.length - 1;
  if (timeWords.size >= TIME_WORDS_KEPT) timeWords.clear();
  timeWords.set(name, answer);
  return answer;
}

function cleanName(name: string): string {
  return name
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    .replace(/['’]s$/, '')
    .trim();
}

const FIRST_PERSON = /^I(?:['’](?:m|ve|ll|d))?$/;

/** Capitalised words not at the start of the sentence (with lower-case dotted parts: "Node.js"): names compromise did
 * not type. */
const CAPITALISED =
  /(?<=[\p{L}\p{N},;:]\s+)(\p{Lu}[\p{L}\p{N}’'-]*(?:\.\p{Ll}[\p{L}\p{N}]*)*(?:\s+\p{Lu}[\p{L}\p{N}’'-]*(?:\.\p{Ll}[\p{L}\p{N}]*)*)*)/gu;
/** Words shaped like file or library names in prose ("package.json", "socket.io"). */
const DOTTED = /(?<![\w.@/-])[\w@][\w.@/-]*\.[A-Za-z][\w]*(?![\w/-])/g;

/** A capital right after a bracket, quote or slash. */
const AFTER_BRACKET = /[([{"'“‘/]\p{Lu}/u;
/** A dot inside a word (a file or dotted name may be there). */
const DOT_WORD = /\w\.\w/;

/** The word a unit opens with. */
const OPENER = /^\s*([\p{L}\p{N}][\p{L}\p{N}._-]*[\p{L}\p{N}]|\p{L})/u;

function entitiesOf(unit: Unit, speaker: string | null): ExtractedEntity[] {
  const found = new Map<string, ExtractedEntity>();
  const add = (name: string, type: string | null, technical = false): void => {
    // "sister Anna" -> "Anna": relation words before a name are not part of it, nor an "I" after it ("Kubernetes I'd").
    // A technical name is kept as written (".env", "@nestjs/core"), less what ends a sentence.
    const clean = technical
      ? name.replace(/[.,:;!?]+$/, '')
      : cleanName(name)
          .replace(/^(?:\p{Ll}[\p{L}'’-]*\s+)+(?=\p{Lu})/u, '')
          .replace(/\s+I(?:['’]\p{L}+)?$/u, '')
          .replace(MERIDIEM_FIRST, '');
    if (clean.length < 2 || isStopword(clean) || FIRST_PERSON.test(clean) || isCodeFragment(clean) || isTimeWord(clean)) return;
    const key = clean.toLowerCase();
    const existing = found.get(key);
    if (!existing || (existing.type === null && type)) found.set(key, { name: clean, type });
  };
  if (speaker) add(speaker, 'person');
  const sentence = unit.plain;
  if (sentence) {
    for (const n of typedNames(sentence)) add(n.name, n.type);
    // A word shaped like a name (PostgreSQL, OAuth2, JWT, Socket.io) is one wherever it stands: opening the sentence
    // or after a bracket or quote too (elsewhere CAPITALISED finds it); a plain capitalised opener ("Ensure",
    // "Redis") is not told apart from a word.
    const opener = OPENER.exec(sentence)?.[1];
    if (opener && isShapedName(opener)) add(opener, null);
    if (AFTER_BRACKET.test(sentence)) for (const name of shapedNames(sentence)) add(name, null);
    for (const m of sentence.matchAll(CAPITALISED)) add(m[1], null);
    if (DOT_WORD.test(sentence))
      for (const m of sentence.matchAll(DOTTED)) {
        const word = m[0];
        if (isFileName(word)) add(word, 'file', true);
        else if (isLibraryName(word)) add(word, 'software', true);
      }
    for (const tool of toolsInProse(sentence)) add(tool, 'software', true);
  }
  for (const n of unit.named) add(n.name, n.type, true);
  return [...found.values()];
}

export class OfflineExtractor implements Extractor {
  readonly name = 'offline';

  async extract(input: ExtractInput): Promise<ExtractedFact[]> {
    const reference = new Date(input.timestamp);
    const units = unitsOf(input.text);
    const entities = units.map((u) => entitiesOf(u, input.speaker));
    // A name the chunk uses elsewhere is a name where it opens a unit too ("**Redis**: ..." after "use Redis").
    const named = new Map(units.length > 1 ? entities.flat().map((e) => [e.name.toLowerCase(), e]) : []);
    if (named.size > 0)
      units.forEach((u, i) => {
        const opener = OPENER.exec(u.plain)?.[1];
        const known = opener && named.get(opener.toLowerCase());
        if (known && !entities[i].some((e) => e.name.toLowerCase() === opener.toLowerCase())) entities[i].push(known);
      });
    const bySection = new Map<string, TimeRange[]>();
    const sectionTimes = (section: string): TimeRange[] => {
      let found = bySection.get(section);
      if (!found) bySection.set(section, (found = parseTimeExpressions(section, reference)));
      return found;
    };
    const facts: ExtractedFact[] = [];
    units.forEach((unit, i) => {
      // First person becomes the speaker; "you" stays as said (see ExtractedFact.addressee).
      const resolved = toThirdPerson(unit.text, { speaker: input.speaker });
      // An error line is not read for names, but a log line's timestamp is when it happened; a unit that says no
      // time is dated by its heading.
      const timeText = unit.plain || (unit.kind === 'error' ? unit.text : '');
      let times = timeText ? parseTimeExpressions(timeText, reference) : [];
      if (times.length === 0 && unit.section) times = sectionTimes(unit.section);
      const causedBy = facts.length > 0 && CAUSAL_START.test(unit.text) ? [facts.length - 1] : [];
      facts.push({
        text: resolved,
        kind: input.fromAgent ? 'experience' : 'world',
        start: unit.start,
        end: unit.end,
        occurredStart: times[0]?.start ?? null,
        occurredEnd: times[0]?.end ?? null,
        entities: entities[i],
        causedBy,
        ...(unit.terms.length ? { terms: unit.terms } : {}),
        ...(unit.section ? { section: unit.section } : {}),
        ...(input.addressee && hasUnresolvedYou(resolved) ? { addressee: input.addressee } : {}),
      });
    });
    return facts;
  }
}
