// When an extracted fact happened, as an ISO range: from the dates a model wrote (a year, a month, a day, or an
// instant; each widened to the period it names), else from its words ("last June") read against the item's
// timestamp, the same way the offline extractor reads time expressions (a month or date without a year by the
// tense of the fact's own words).
import { parseTimeExpressions, utcTime } from '../text/index.ts';

export interface OccurredRange {
  start: string | null;
  end: string | null;
}

const YEAR = /^(\d{4})$/;
const MONTH = /^(\d{4})-(\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for what periodOf can read: YYYY, YYYY-MM, YYYY-MM-DD, or any date-time Date.parse understands. */
export function isDateLike(value: string): boolean {
  return periodOf(value) !== null;
}

/** The period a written date names: a whole year, month or day, or (for a date-time) that instant. */
export function periodOf(value: string): { start: number; end: number } | null {
  const v = value.trim();
  let m: RegExpExecArray | null;
  if ((m = YEAR.exec(v))) return span(utcTime(+m[1], 0, 1), utcTime(+m[1] + 1, 0, 1));
  if ((m = MONTH.exec(v))) {
    if (+m[2] < 1 || +m[2] > 12) return null;
    return span(utcTime(+m[1], +m[2] - 1, 1), utcTime(+m[1], +m[2], 1));
  }
  if ((m = DAY.exec(v))) {
    const start = utcTime(+m[1], +m[2] - 1, +m[3]);
    if (new Date(start).getUTCDate() !== +m[3]) return null;
    return span(start, start + 86_400_000);
  }
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : { start: ms, end: ms };
}

/** [start, next) becomes [start, next - 1ms]. */
const span = (start: number, next: number): { start: number; end: number } => ({ start, end: next - 1 });

const iso = (ms: number): string => new Date(ms).toISOString();

export function occurredRange(
  start: string | null | undefined,
  end: string | null | undefined,
  when: string | null | undefined,
  reference: Date,
  /** The words the fact came from, for the tense of a bare "when" ("September 14th" in "is planned for ..."). */
  context?: string,
): OccurredRange {
  const from = start ? periodOf(start) : null;
  const to = end ? periodOf(end) : null;
  if (from || to) {
    const lo = Math.min(from?.start ?? Infinity, to?.start ?? Infinity);
    const hi = Math.max(from?.end ?? -Infinity, to?.end ?? -Infinity);
    return { start: iso(lo), end: iso(hi) };
  }
  if (when) {
    const [found] = parseTimeExpressions(when, reference, context);
    if (found) return { start: found.start, end: found.end };
  }
  return { start: null, end: null };
}
