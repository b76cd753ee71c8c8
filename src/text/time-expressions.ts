// Time expressions in text ("yesterday", "last June", "two weeks ago", "in 2022") read relative to a
// reference instant and turned into ISO ranges sized by what the expression actually pins down.
import * as chrono from 'chrono-node';

export interface TimeRange {
  text: string;
  index: number;
  start: string;
  end: string;
}

const DAY = 86_400_000;

function startOfMonth(y: number, m: number): Date {
  return new Date(Date.UTC(y, m, 1));
}

function rangeOf(result: chrono.ParsedResult, text: string, reference: Date): { start: Date; end: Date } {
  const s = result.start;
  const known = (k: chrono.Component): boolean => s.isCertain(k);
  let start = s.date();
  const lower = result.text.toLowerCase();
  const before = text.slice(Math.max(0, result.index - 12), result.index).toLowerCase();
  // chrono reads "last June" said in May as the coming June; a "last/previous/this past" month is in the past.
  if (known('month') && !known('year') && /(last|previous|past)\s*$/.test(before) && start.getTime() > reference.getTime()) {
    start = new Date(start.getTime());
    start.setUTCFullYear(start.getUTCFullYear() - 1);
  }
  if (result.end) return { start: new Date(start.getTime()), end: result.end.date() };
  if (/\bweekend\b/.test(lower)) return { start: new Date(start.getTime() - DAY), end: new Date(start.getTime() + 2 * DAY) };
  if (/\bweeks?\b/.test(lower)) return { start: new Date(start.getTime() - 3.5 * DAY), end: new Date(start.getTime() + 3.5 * DAY) };
  if (known('day')) {
    const d = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
    return { start: d, end: new Date(d.getTime() + DAY - 1) };
  }
  if (known('month')) {
    const y = start.getUTCFullYear();
    const m = start.getUTCMonth();
    return { start: startOfMonth(y, m), end: new Date(startOfMonth(y, m + 1).getTime() - 1) };
  }
  if (known('year')) {
    const y = start.getUTCFullYear();
    return { start: new Date(Date.UTC(y, 0, 1)), end: new Date(Date.UTC(y + 1, 0, 1) - 1) };
  }
  // Only a weekday or a time of day: the day it points at.
  const d = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
  return { start: d, end: new Date(d.getTime() + DAY - 1) };
}

const YEAR = /\b(?:in|during|since|of|from)\s+((?:19|20)\d{2})\b/gi;

export function parseTimeExpressions(text: string, reference: Date): TimeRange[] {
  const out: TimeRange[] = [];
  for (const r of chrono.parse(text, reference)) {
    const { start, end } = rangeOf(r, text, reference);
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) continue;
    out.push({ text: r.text, index: r.index, start: start.toISOString(), end: end.toISOString() });
  }
  for (const m of text.matchAll(YEAR)) {
    const y = Number(m[1]);
    const index = (m.index ?? 0) + m[0].indexOf(m[1]);
    if (out.some((r) => index >= r.index && index < r.index + r.text.length)) continue;
    out.push({ text: m[1], index, start: new Date(Date.UTC(y, 0, 1)).toISOString(), end: new Date(Date.UTC(y + 1, 0, 1) - 1).toISOString() });
  }
  return out.sort((a, b) => a.index - b.index);
}
