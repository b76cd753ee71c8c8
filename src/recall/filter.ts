// The FactFilter applied to facts already in memory (the graph arm reaches facts through links and
// entities, which the graph port does not filter; recall re-checks every result with it too).
import type { FactFacets, FactFilter } from '../store/index.ts';

export function matchesFilter(fact: FactFacets, filter: FactFilter): boolean {
  if (filter.kinds?.length && !filter.kinds.includes(fact.kind)) return false;
  if (filter.tags?.some((t) => !fact.tags.includes(t))) return false;
  if (filter.stances?.length && !filter.stances.some((s) => fact.stance === s)) return false;
  if (filter.occurredFrom || filter.occurredTo) {
    // Canonical ISO times compare as text. A fact the text gave no time cannot be said to fall in the range.
    if (fact.occurredStart === null) return false;
    if (filter.occurredTo && fact.occurredStart > filter.occurredTo) return false;
    if (filter.occurredFrom && (fact.occurredEnd ?? fact.occurredStart) < filter.occurredFrom) return false;
  }
  if (filter.validAt) {
    if (fact.validFrom !== null && fact.validFrom > filter.validAt) return false;
    if (fact.validTo !== null && fact.validTo <= filter.validAt) return false;
  }
  if (filter.recordedBefore) {
    // As of a past instant: recorded by then, and not yet superseded then.
    if (fact.createdAt > filter.recordedBefore) return false;
    if (!filter.includeSuperseded && fact.supersededAt !== null && fact.supersededAt <= filter.recordedBefore) return false;
    return true;
  }
  return filter.includeSuperseded === true || fact.status === 'active';
}
