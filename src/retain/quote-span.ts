// Finds where a quote a model copied from a text sits in that text. Models copy "verbatim" loosely: spacing,
// case, curly quotes and dashes drift, and trailing punctuation comes and goes. The search tries the exact
// quote first (from a preferred position, then anywhere), then a normalized comparison whose match is mapped
// back to the original characters. Null when the quote is not there.

export interface Span {
  start: number;
  end: number;
}

/** Comparable form of one character: lower case, straight quotes, plain hyphen; '' drops it. */
function fold(c: string): string {
  if (/[\u2018\u2019\u201A\u201B\u2032`]/.test(c)) return "'";
  if (/[\u201C\u201D\u201E\u201F\u2033]/.test(c)) return '"';
  if (/[\u2010-\u2015\u2212]/.test(c)) return '-';
  if (c === '\u2026') return '...';
  return c.toLowerCase();
}

/** The normalized text (whitespace runs become one space) and, per normalized char, its original index. */
function normalize(text: string): { chars: string; origin: number[] } {
  let chars = '';
  const origin: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (/\s/.test(c)) {
      space = chars.length > 0;
      continue;
    }
    if (space) {
      chars += ' ';
      origin.push(i);
      space = false;
    }
    for (const f of fold(c)) {
      chars += f;
      origin.push(i);
    }
  }
  return { chars, origin };
}

const EDGE_PUNCTUATION = /^[\s"'«»“”‘’.,;:!?()[\]-]+|[\s"'«»“”‘’.,;:!?()[\]-]+$/g;

export function locateQuote(text: string, quote: string, from = 0): Span | null {
  const q = quote.trim();
  // A quote without words anchors nothing ('.', '--').
  if (!/[\p{L}\p{N}]/u.test(q)) return null;
  const exact = indexFrom(text, q, from);
  if (exact !== -1) return { start: exact, end: exact + q.length };

  const hay = normalize(text);
  for (const candidate of [q, q.replace(EDGE_PUNCTUATION, '')]) {
    const needle = normalize(candidate).chars;
    if (needle.length < 3) continue;
    const fromNormalized = hay.origin.findIndex((o) => o >= from);
    const at = indexFrom(hay.chars, needle, fromNormalized === -1 ? 0 : fromNormalized);
    if (at === -1) continue;
    const last = hay.origin[at + needle.length - 1];
    return { start: hay.origin[at], end: last + 1 };
  }
  return null;
}

/** indexOf from a preferred position, else from the start. */
function indexFrom(hay: string, needle: string, from: number): number {
  const after = hay.indexOf(needle, from);
  return after !== -1 ? after : hay.indexOf(needle);
}
