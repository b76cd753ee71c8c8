// Time expressions in text ("yesterday", "last June", "two weeks ago", "in 2022") read relative to a
// reference instant and turned into ISO ranges sized by what the expression actually pins down.
import * as chrono from 'chrono-node';
import { directionAt, type Direction } from './tense.ts';

export interface TimeRange {
  text: string;
  index: number;
  start: string;
  end: string;
}

const DAY = 86_400_000;

/**
 * Date.UTC(year, month, day) for any year: Date.UTC (like new Date(y, m, d)) reads a year 0 to 99 as 1900 to 1999,
 * so "0099-03-04" came out as 1999. setUTCFullYear takes the year as given; month and day may overflow as in Date.UTC.
 */
export function utcTime(year: number, month: number, day = 1): number {
  return new Date(0).setUTCFullYear(year, month, day);
}

function startOfMonth(y: number, m: number): Date {
  return new Date(utcTime(y, m, 1));
}

/** Words in an expression by which chrono already chose the occurrence ("next Friday", "this weekend"). */
const RESOLVED = /\b(?:last|previous|past|this|next|coming|upcoming)\b/i;

/** A word just before an expression chrono read without it ("last June", "next September", "this June"). */
const BEFORE = /\b(last|previous|past|this|next|coming|upcoming)\s+(?:the\s+)?$/i;

/**
 * An expression that names a month, a day of a month or a weekday but not which year or week ("September 14th",
 * "in June", "on Friday"): the step to its other occurrences, or null when the expression pins one down.
 */
function recurrence(result: chrono.ParsedResult): 'year' | 'week' | null {
  const s = result.start;
  if (s.isCertain('year') || RESOLVED.test(result.text)) return null;
  if (s.isCertain('month')) return 'year';
  if (s.isCertain('weekday') && !s.isCertain('day')) return 'week';
  return null;
}

/**
 * Which occurrence the words mean: a modifier just before the expression, else the tense around it, else the
 * tense of the context (the sentence a bare "September 14th" was taken from), where the expression is in it.
 */
function directionOf(result: chrono.ParsedResult, text: string, context: string | undefined): Direction | null {
  const before = BEFORE.exec(text.slice(Math.max(0, result.index - 16), result.index));
  if (before) {
    const word = before[1].toLowerCase();
    return word === 'this' ? null : ['last', 'previous', 'past'].includes(word) ? 'past' : 'future';
  }
  const own = directionAt(text, result.index, result.text.length);
  if (own || !context) return own;
  const at = context.toLowerCase().indexOf(result.text.toLowerCase());
  return at >= 0 ? directionAt(context, at, result.text.length) : directionAt(context, context.length, 0);
}

/** Moves a date by whole years (keeping month and day) or weeks. */
function shift(date: Date, unit: 'year' | 'week', n: number): Date {
  const d = new Date(date.getTime());
  if (unit === 'year') d.setUTCFullYear(d.getUTCFullYear() + n);
  else d.setUTCDate(d.getUTCDate() + 7 * n);
  return d;
}

const dayOf = (d: Date): number => utcTime(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());

/**
 * How many steps move chrono's reading (the nearest occurrence) to the one the words mean: for plans the next one
 * from the reference (today counts for a date or a month, not for a weekday: "on Friday we will" said on a Friday
 * is next week), for the past the latest one before it.
 */
function steps(start: Date, unit: 'year' | 'week', monthOnly: boolean, direction: Direction, reference: Date): number {
  const today = dayOf(reference);
  const first = (d: Date): number => (monthOnly ? utcTime(d.getUTCFullYear(), d.getUTCMonth(), 1) : dayOf(d));
  const last = (d: Date): number => (monthOnly ? utcTime(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1 : dayOf(d));
  // chrono's reading is the nearest occurrence, so the one wanted is at most a step or two away.
  const candidates = [-2, -1, 0, 1, 2];
  if (direction === 'future')
    return candidates.find((n) => (unit === 'week' ? dayOf(shift(start, unit, n)) > today : last(shift(start, unit, n)) >= today)) ?? 0;
  return candidates.findLast((n) => (unit === 'week' ? dayOf(shift(start, unit, n)) < today : first(shift(start, unit, n)) <= today)) ?? 0;
}

/** A date and time as machines write them: "2024-03-05 14:32:10", "2024-03-05T14:32:10Z", "2024/3/5 14:32". */
const STAMP = /^\d{4}([-/])\d{1,2}\1\d{1,2}[T ]\d{1,2}:\d{2}/;

function rangeOf(result: chrono.ParsedResult, text: string, reference: Date, context: string | undefined): { start: Date; end: Date } {
  const s = result.start;
  const known = (k: chrono.Component): boolean => s.isCertain(k);
  let start = s.date();
  let end = result.end?.date();
  const unit = recurrence(result);
  const direction = unit ? directionOf(result, text, context) : null;
  if (unit && direction) {
    const n = steps(start, unit, !known('day'), direction, reference);
    start = shift(start, unit, n);
    if (end) end = shift(end, unit, n);
  }
  const lower = result.text.toLowerCase();
  if (end) return { start, end };
  if (STAMP.test(result.text) && known('hour') && known('minute')) {
    // A machine timestamp (a log line's) tells its second, or its minute: the lines of a day's log keep their order.
    const span = known('second') ? 1000 : 60_000;
    const at = Math.floor(start.getTime() / span) * span;
    return { start: new Date(at), end: new Date(at + span - 1) };
  }
  if (/\bweekend\b/.test(lower)) return { start: new Date(start.getTime() - DAY), end: new Date(start.getTime() + 2 * DAY) };
  if (/\bweeks?\b/.test(lower)) return { start: new Date(start.getTime() - 3.5 * DAY), end: new Date(start.getTime() + 3.5 * DAY) };
  if (known('day')) {
    const d = new Date(utcTime(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
    return { start: d, end: new Date(d.getTime() + DAY - 1) };
  }
  if (known('month')) {
    const y = start.getUTCFullYear();
    const m = start.getUTCMonth();
    return { start: startOfMonth(y, m), end: new Date(startOfMonth(y, m + 1).getTime() - 1) };
  }
  if (known('year')) {
    const y = start.getUTCFullYear();
    return { start: new Date(utcTime(y, 0, 1)), end: new Date(utcTime(y + 1, 0, 1) - 1) };
  }
  // Only a weekday or a time of day: the day it points at.
  const d = new Date(utcTime(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
  return { start: d, end: new Date(d.getTime() + DAY - 1) };
}

const YEAR = /\b(?:in|during|since|of|from)\s+((?:19|20)\d{2})\b/gi;

/**
 * What any expression chrono's English parsers read holds: a digit, a casual day or time word, a month or weekday
 * name or abbreviation, a time unit, or a one-letter unit after a number word or a modifier ("a few d", "this y").
 * About two thirds of the sentences of a conversation hold none, and chrono tries every parser on a text (a tenth of a
 * retain's CPU): those skip it. Checked against chrono itself on all 226k sentences of LoCoMo and beam-dev (no time
 * expression lost); time-expressions.test.ts holds the forms.
 */
export const MAY_TELL_TIME = new RegExp(
  [
    String.raw`\d`,
    String.raw`\b(?:now|today|tonight|tomorrow|overmorrow|tmrw?|yesterday|morning|afternoon|evening|night|midnight|midday|noon` +
      '|january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec' +
      '|sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tue|wed|thur?s?|thu|fri|sat|weekends?|weekdays?' +
      String.raw`|sec|seconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|mos|months?|qtr|quarters?|yr|years?)\b`,
    String.raw`\b(?:this|last|past|next|after)\s*(?:[smhdwy]|mo|weekend|weekday)\b`,
    String.raw`\b(?:(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half(?:\s{0,2}an?)?|few|several|couple)\s{0,3}|(?:an?|the|of)\b\s{0,3})(?:[smhdwy]|mo)\b`,
    // A number word run into its unit ("a fewdays", "half ahour", "couplehours"), and "lastnight".
    String.raw`\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|an?|few|several|couple|the|of)\s{0,3}(?:sec|seconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|mos|months?|qtr|quarters?|yr|years?)\b`,
    String.raw`last\s*night`,
  ].join('|'),
  'i',
);

/**
 * The time expressions of a text as ranges read from the reference instant. A month, date or weekday without a
 * year is the next occurrence in a plan, the latest one in the past tense, else the nearest; `context` is where
 * to read the tense when the text is only the expression (a model's "when": "September 14th"). A time written without a
 * zone is read in UTC, as days are everywhere here: the same text gives the same range on any host.
 */
export function parseTimeExpressions(text: string, reference: Date, context?: string): TimeRange[] {
  const out: TimeRange[] = [];
  for (const r of MAY_TELL_TIME.test(text) ? chrono.parse(text, { instant: reference, timezone: 0 }) : []) {
    const { start, end } = rangeOf(r, text, reference, context);
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) continue;
    out.push({ text: r.text, index: r.index, start: start.toISOString(), end: end.toISOString() });
  }
  for (const m of text.matchAll(YEAR)) {
    const y = Number(m[1]);
    const index = (m.index ?? 0) + m[0].indexOf(m[1]);
    if (out.some((r) => index >= r.index && index < r.index + r.text.length)) continue;
    out.push({
      text: m[1],
      index,
      start: new Date(utcTime(y, 0, 1)).toISOString(),
      end: new Date(utcTime(y + 1, 0, 1) - 1).toISOString(),
    });
  }
  return out.sort((a, b) => a.index - b.index);
}
