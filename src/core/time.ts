// Time helpers: one canonical ISO-8601 form, strict parsing with clear failures, and distances in days.
import { badRequest, shortened } from './errors.ts';

export const nowIso = (): string => new Date().toISOString();

// A calendar date, optionally followed by a time of day with optional seconds, fraction and UTC offset (RFC 3339
// and the usual ISO 8601 extended forms). Years are four digits; a time without an offset is read as UTC.
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** The instants the canonical form writes with a four-digit year (an offset can push a date past them). */
const MIN_MS = Date.parse('0000-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The canonical form (`toISOString`, UTC with milliseconds) of an ISO 8601 date or date-time, or null when the
 * text is not one or names an impossible instant (February 30th, hour 24, month 13).
 */
export function isoInstant(value: string): string | null {
  const m = ISO_INSTANT.exec(value);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = Number((m[7] ?? '0').slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (m[9]) {
    const [oh, om] = [Number(m[10]), Number(m[11] ?? 0)];
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  const at = date.getTime() - offsetMinutes * 60_000;
  if (at < MIN_MS || at > MAX_MS) return null;
  return new Date(at).toISOString();
}

export const ISO_HINT = 'e.g. 2024-06-01T12:00:00Z or 2024-06-01';

/** Parses an ISO-8601 timestamp into the canonical form; throws a 400 naming the field when it cannot. */
export function parseTimestamp(value: string, field: string): string {
  const at = isoInstant(value);
  if (at === null) throw badRequest(`${field} '${shortened(value, 100)}' is not a valid date; use ISO 8601, ${ISO_HINT}`);
  return at;
}

export const DAY_MS = 86_400_000;

export function daysBetween(a: string, b: string): number {
  return Math.abs(Date.parse(a) - Date.parse(b)) / DAY_MS;
}
