// Time helpers: one canonical ISO-8601 form, parsing with clear failures, and distances in days.
import { badRequest } from './errors.ts';

export const nowIso = (): string => new Date().toISOString();

/** Parses an ISO-8601 (or any Date-parseable) timestamp; throws a 400 naming the field when it cannot. */
export function parseTimestamp(value: string, field: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw badRequest(`${field} '${value}' is not a valid date; use ISO 8601, e.g. 2024-06-01T12:00:00Z`);
  return new Date(ms).toISOString();
}

export const DAY_MS = 86_400_000;

export function daysBetween(a: string, b: string): number {
  return Math.abs(Date.parse(a) - Date.parse(b)) / DAY_MS;
}
