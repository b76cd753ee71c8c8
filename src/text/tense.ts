// Which way a time expression without a year points, read from the words around it: plans and the future ("is
// planned for", "will", "going to", "next", "I'm flying on Friday") point forward from the moment it was said,
// the past tense ("went", "was", "last", a past-tense verb) points back, and anything else is left undecided
// (the caller then takes the nearest occurrence). The cue nearest to the expression decides, looked for first in
// its own clause, then in its sentence, so "I went to Rome on Friday and will fly to Oslo on Monday" reads
// Friday as past and Monday as future.
import nlp from 'compromise';
import { remembered } from '../core/index.ts';

export type Direction = 'future' | 'past';

interface Cue {
  start: number;
  end: number;
  direction: Direction;
}

const FUTURE =
  /\b(?:will|shall|won['’]?t|gonna|going to|about to|plan(?:s|ned|ning)? (?:to|for|on)|(?:is|are|was|were) (?:planned|scheduled|set|booked|due)|scheduled|upcoming|coming up|next|soon|tomorrow|can['’]?t wait|cannot wait|looking forward|look forward|hop(?:e|es|ing) to|intend(?:s|ing)? to|wants? to|wanna|would (?:like|love) to|['’]d (?:like|love) to|aim(?:s|ing)? to|expect(?:s|ing)? to|lined up|let['’]?s|see you)\b|\b\w+['’]ll\b|\b(?:am|is|are|['’]m|['’]re|['’]s)\s+(?:\w+ly\s+)?\w+ing\b/gi;

const PAST = /\b(?:was|were|did|didn['’]?t|had|went|used to|ago|last|yesterday|earlier|previously)\b/gi;

/** Where a clause ends inside a sentence: punctuation or a conjunction that starts a new one. */
const CLAUSE_BREAK = /[,;:()–—]|\s(?:but|and|or|while|whereas|although|though|so|because|then)\s/gi;

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** cuesIn's answers by text: each time expression of a sentence reads its clause and then the whole sentence, and a
 * conversation says sentences again; compromise's full tagging (for past-tense verbs) is most of the cost. */
const cuesIn = remembered((text: string): readonly Cue[] => readCues(text), 10_000);

function readCues(text: string): Cue[] {
  const cues: Cue[] = [];
  for (const m of text.matchAll(FUTURE)) cues.push({ start: m.index, end: m.index + m[0].length, direction: 'future' });
  const future = [...cues];
  const overlapsFuture = (start: number, end: number): boolean => future.some((f) => start < f.end && end > f.start);
  for (const m of text.matchAll(PAST)) {
    const end = m.index + m[0].length;
    if (!overlapsFuture(m.index, end)) cues.push({ start: m.index, end, direction: 'past' });
  }
  // Past-tense verbs in general ("visited", "bought"); a participle inside a plan ("is planned for") is not one.
  const verbs = nlp(text).match('#PastTense').json({ offset: true }) as Array<{ offset: { start: number; length: number } }>;
  for (const v of verbs) {
    const start = v.offset.start;
    const end = start + v.offset.length;
    if (!overlapsFuture(start, end)) cues.push({ start, end, direction: 'past' });
  }
  return cues;
}

function span(text: string, index: number, breaks: RegExp | null): { start: number; end: number } {
  let start = 0;
  let end = text.length;
  if (breaks)
    for (const m of text.matchAll(breaks)) {
      if (m.index + m[0].length <= index) start = m.index + m[0].length;
      else if (m.index >= index) {
        end = m.index;
        break;
      }
    }
  return { start, end };
}

function nearest(text: string, from: number, to: number, expressionStart: number, expressionEnd: number): Direction | null {
  const piece = text.slice(from, to);
  let best: { distance: number; direction: Direction } | null = null;
  for (const c of cuesIn(piece)) {
    const start = from + c.start;
    const end = from + c.end;
    const distance = end <= expressionStart ? expressionStart - end : start >= expressionEnd ? start - expressionEnd : 0;
    // On a tie the plan wins: "planned" in "is planned for" is both a past participle and a plan.
    if (!best || distance < best.distance || (distance === best.distance && c.direction === 'future'))
      best = { distance, direction: c.direction };
  }
  return best?.direction ?? null;
}

/**
 * The direction of the time expression at text[index, index + length), or null when the words do not say.
 * Cues inside the expression count too ("next June").
 */
export function directionAt(text: string, index: number, length: number): Direction | null {
  let sentence = { start: 0, end: text.length };
  for (const s of segmenter.segment(text)) {
    if (index >= s.index && index < s.index + s.segment.length) {
      sentence = { start: s.index, end: s.index + s.segment.length };
      break;
    }
  }
  const body = text.slice(sentence.start, sentence.end);
  const at = index - sentence.start;
  const clause = span(body, at, CLAUSE_BREAK);
  return nearest(body, clause.start, clause.end, at, at + length) ?? nearest(body, 0, body.length, at, at + length);
}
