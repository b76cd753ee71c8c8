// The Cypher form of a FactFilter (kinds, tags, superseded facts, record, occurred and valid time) as a WHERE
// condition over one fact variable, plus the rule every read follows: facts of a write that is not complete yet
// (pending) are invisible. Values go into parameters; the condition text depends only on which filter fields are set.
import type { FactFilter } from '../ports.ts';
import type { Params } from './statement.ts';

export interface Condition {
  /** Conditions joined with AND (never empty). */
  text: string;
  params: Params;
}

const VARIABLE = /^[a-z][A-Za-z0-9]*$/;

/** Visible: written completely (the second phase of a two-store write has run). */
export const visible = (v: string): string => `coalesce(${v}.pending, false) = false`;

export function factCondition(filter: FactFilter = {}, v = 'f'): Condition {
  if (!VARIABLE.test(v)) throw new Error(`'${v}' is not a Cypher variable name`);
  const parts = [visible(v)];
  const params: Params = {};
  if (filter.kinds?.length) {
    parts.push(`${v}.kind IN $filterKinds`);
    params.filterKinds = [...filter.kinds];
  }
  if (filter.tags?.length) {
    parts.push(`all(tag IN $filterTags WHERE tag IN ${v}.tags)`);
    params.filterTags = [...filter.tags];
  }
  if (filter.occurredFrom || filter.occurredTo) {
    // The occurred interval overlaps the range; facts without an occurred time are left out. Times are ISO text.
    parts.push(`${v}.occurredStart IS NOT NULL`);
    if (filter.occurredTo) {
      parts.push(`${v}.occurredStart <= $filterOccurredTo`);
      params.filterOccurredTo = filter.occurredTo;
    }
    if (filter.occurredFrom) {
      parts.push(`coalesce(${v}.occurredEnd, ${v}.occurredStart) >= $filterOccurredFrom`);
      params.filterOccurredFrom = filter.occurredFrom;
    }
  }
  if (filter.stances?.length) {
    parts.push(`${v}.stance IN $filterStances`);
    params.filterStances = filter.stances;
  }
  if (filter.validAt) {
    parts.push(`(${v}.validFrom IS NULL OR ${v}.validFrom <= $filterValidAt) AND (${v}.validTo IS NULL OR ${v}.validTo > $filterValidAt)`);
    params.filterValidAt = filter.validAt;
  }
  if (filter.recordedBefore) {
    // As of a past instant: facts recorded by then, and not yet superseded then.
    parts.push(`${v}.createdAt <= $filterRecordedBefore`);
    params.filterRecordedBefore = filter.recordedBefore;
    if (!filter.includeSuperseded) parts.push(`(${v}.supersededAt IS NULL OR ${v}.supersededAt > $filterRecordedBefore)`);
  } else if (!filter.includeSuperseded) {
    parts.push(`${v}.status = 'active'`);
  }
  return { text: parts.join(' AND '), params };
}
