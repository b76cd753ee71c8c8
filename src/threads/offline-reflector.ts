// The offline reflector: deterministic condensation of observations (or reflections) into one reflection.
// It reads the notes back, lets later information win (a repeated statement keeps only its latest wording; a
// changed state such as a new deadline or address replaces the old one), ranks what is left by salience,
// recency and how many reflections a note already survived, and keeps the best notes within the target size,
// in their original order.
import { countTokens } from '../text/tokens.ts';
import { contentWords } from '../text/words.ts';
import { formatNotes, parseNotes, type Note } from './notes.ts';
import type { ReflectRequest, Reflector } from './ports.ts';
import { properNouns, restates, salience, wordSet } from './salience.ts';

/** Statements about a state (where someone lives, a deadline, a preference) that a later statement replaces. */
const STATE = /\b(is|are|am|'m|'s|lives?|living|works?|working|prefers?|favou?rite|deadline|budget|due|name|called|costs?|price|meeting|moved|switched|now)\b/i;
const VALUE = /^(?:\d[\d.,:]*|mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december)$/;

interface Unit {
  note: Note;
  order: number;
  /** Position of the source item (later items are newer). */
  source: number;
  generation: number;
  words: Set<string>;
  /** Content words that are not values (numbers, days, names): the "slot" a state statement fills. */
  slot: string;
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
    const units: Unit[] = [];
    let order = 0;
    request.items.forEach((item, source) => {
      for (const note of parseNotes(item.text)) {
        const words = wordSet(note.text);
        if (words.size === 0) continue;
        units.push({ note, order: order++, source, generation: item.generation, words, slot: slotOf(note.text), tokens: countTokens(note.text) + 2, score: 0 });
      }
    });

    // Later information wins: drop a unit when a later one (same speaker) restates it or replaces its state.
    const kept: Unit[] = [];
    for (let i = units.length - 1; i >= 0; i--) {
      const u = units[i];
      const superseded = kept.some(
        (k) =>
          k.note.speaker === u.note.speaker &&
          (restates(u.words, k.words, 0.75) || (STATE.test(u.note.text) && STATE.test(k.note.text) && u.slot !== '' && u.slot === k.slot)),
      );
      if (!superseded) kept.push(u);
    }
    kept.reverse();

    const last = Math.max(1, request.items.length - 1);
    for (const u of kept) {
      u.score =
        salience(u.note.text, { role: 'user' }) +
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
