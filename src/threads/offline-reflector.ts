// The offline reflector: deterministic condensation of observations (or reflections) into one reflection.
// It reads the notes back, lets later information win (a repeated statement keeps only its latest wording; a
// changed state such as a new deadline or address replaces the old one), ranks what is left by salience,
// recency and how many reflections a note already survived, and keeps the best notes within the target size,
// in their original order.
import { countTokens, contentWords } from '../text/index.ts';
import { formatNotes, parseNotes, type Note } from './notes.ts';
import type { ReflectRequest, Reflector } from './ports.ts';
import { noteScore, properNouns, restates, salience, splitSentences, wordSet } from './salience.ts';

/** Statements about a state (where someone lives, a deadline, a preference) that a later statement replaces. */
const STATE =
  /\b(is|are|am|'m|'s|lives?|living|works?|working|prefers?|favou?rite|deadline|budget|due|name|called|costs?|price|meeting|moved|switched|now)\b/i;
const VALUE =
  /^(?:\d[\d.,:]*|mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december)$/;

/** One sentence of a note, as the "later information wins" pass sees it. */
interface Statement {
  text: string;
  speaker: string | null;
  words: Set<string>;
  /** Content words that are not values (numbers, days, names): the "slot" a state statement fills. */
  slot: string;
  dropped: boolean;
}

/** A note (one speaker's turn) of one source item: kept or dropped whole once its outdated sentences are gone. */
interface Unit {
  note: Note;
  statements: Statement[];
  order: number;
  /** Position of the source item (later items are newer). */
  source: number;
  generation: number;
  tokens: number;
  score: number;
}

function slotOf(text: string): string {
  const names = new Set(
    text
      .split(/\s+/)
      .slice(1)
      .filter((t) => /^[A-Z]/.test(t))
      .map((t) => t.toLowerCase().replace(/[^\p{L}\d]/gu, '')),
  );
  return contentWords(text)
    .filter((w) => !VALUE.test(w) && !names.has(w))
    .sort()
    .join(' ');
}

export class OfflineReflector implements Reflector {
  readonly name = 'offline';

  async reflect(request: ReflectRequest): Promise<{ text: string }> {
    const all: Unit[] = [];
    let order = 0;
    request.items.forEach((item, source) => {
      for (const note of parseNotes(item.text)) {
        const statements = splitSentences(note.text).map((text) => ({
          text,
          speaker: note.speaker,
          words: wordSet(text),
          slot: slotOf(text),
          dropped: false,
        }));
        all.push({ note, statements, order: order++, source, generation: item.generation, tokens: 0, score: 0 });
      }
    });

    // Later information wins: drop a sentence when a later one of the same speaker restates it or replaces its state.
    const later: Statement[] = [];
    for (const s of all.flatMap((u) => u.statements).reverse()) {
      if (s.words.size === 0) s.dropped = true;
      else
        s.dropped = later.some(
          (k) =>
            k.speaker === s.speaker &&
            (restates(s.words, k.words, 0.75) || (STATE.test(s.text) && STATE.test(k.text) && s.slot !== '' && s.slot === k.slot)),
        );
      if (!s.dropped) later.push(s);
    }
    const kept: Unit[] = [];
    for (const u of all) {
      const rest = u.statements.filter((s) => !s.dropped);
      if (!rest.length) continue;
      const text = rest.map((s) => s.text).join(' ');
      kept.push({ ...u, note: { ...u.note, text }, statements: rest, tokens: countTokens(text) + 3 });
    }

    const last = Math.max(1, request.items.length - 1);
    for (const u of kept) {
      u.score =
        noteScore(
          u.statements.map((x) => ({ score: salience(x.text, { role: 'user' }) })),
          u.tokens,
        ) +
        0.6 * (u.source / last) +
        0.3 * Math.min(u.generation, 3) +
        0.2 * Math.min(properNouns(u.note.text), 2);
    }

    const chosen: Unit[] = [];
    let used = 0;
    for (const u of [...kept].sort((a, b) => b.score - a.score || b.order - a.order)) {
      if (used + u.tokens > request.targetTokens) continue;
      chosen.push(u);
      used += u.tokens;
    }
    // Dates and speaker labels cost tokens too: shed the weakest notes until the formatted text fits.
    let text = formatNotes([...chosen].sort((a, b) => a.order - b.order).map((u) => u.note));
    while (chosen.length > 1 && countTokens(text) > request.targetTokens) {
      chosen.pop();
      text = formatNotes([...chosen].sort((a, b) => a.order - b.order).map((u) => u.note));
    }
    return { text };
  }
}
