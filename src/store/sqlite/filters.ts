// The SQL form of a FactFilter (kinds, tags, superseded facts, record time, occurred and valid time), for any query
// over facts. Times are canonical ISO text, so they compare as text.
import type { FactFilter } from '../ports.ts';

export function factFilterSql(filter: FactFilter, alias: string): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter.kinds?.length) {
    parts.push(`${alias}.kind IN (${filter.kinds.map(() => '?').join(', ')})`);
    params.push(...filter.kinds);
  }
  for (const tag of filter.tags ?? []) {
    parts.push(`EXISTS (SELECT 1 FROM json_each(${alias}.tags) t WHERE t.value = ?)`);
    params.push(tag);
  }
  if (filter.occurredFrom || filter.occurredTo) {
    // The occurred interval overlaps the range; facts without an occurred time are left out.
    parts.push(`${alias}.occurred_start IS NOT NULL`);
    if (filter.occurredTo) {
      parts.push(`${alias}.occurred_start <= ?`);
      params.push(filter.occurredTo);
    }
    if (filter.occurredFrom) {
      parts.push(`coalesce(${alias}.occurred_end, ${alias}.occurred_start) >= ?`);
      params.push(filter.occurredFrom);
    }
  }
  if (filter.stances?.length) {
    parts.push(`${alias}.stance IN (${filter.stances.map(() => '?').join(', ')})`);
    params.push(...filter.stances);
  }
  if (filter.validAt) {
    parts.push(`(${alias}.valid_from IS NULL OR ${alias}.valid_from <= ?) AND (${alias}.valid_to IS NULL OR ${alias}.valid_to > ?)`);
    params.push(filter.validAt, filter.validAt);
  }
  if (filter.recordedBefore) {
    // As of a past instant: facts recorded by then, and not yet superseded then.
    parts.push(`${alias}.created_at <= ?`);
    params.push(filter.recordedBefore);
    if (!filter.includeSuperseded) {
      parts.push(`(${alias}.superseded_at IS NULL OR ${alias}.superseded_at > ?)`);
      params.push(filter.recordedBefore);
    }
  } else if (!filter.includeSuperseded) {
    parts.push(`${alias}.status = 'active'`);
  }
  return { sql: parts.length ? ` AND ${parts.join(' AND ')}` : '', params };
}
