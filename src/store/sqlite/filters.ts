// The SQL form of a FactFilter (kinds, tags, superseded facts, record time), for any query over facts.
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
