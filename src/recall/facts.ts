// Facts read once per recall: the arms and the result builder ask for overlapping sets of facts (seeds,
// reached facts, candidates), so each id is read from the store at most once per request. Arms that only filter
// and score hundreds of facts read their facets (a narrow row) instead, or the whole fact when it is already read.
import type { Fact } from '../core/index.ts';
import type { FactFacets, RecallReads } from '../store/index.ts';

export class FactLoader {
  private readonly loaded = new Map<string, Promise<Fact | undefined>>();
  /** Facets read without and with entity ids. */
  private readonly narrow = new Map<string, Promise<FactFacets | undefined>>();
  private readonly withEntities = new Map<string, Promise<FactFacets | undefined>>();

  constructor(
    private readonly store: RecallReads,
    private readonly bankId: string,
  ) {}

  /** The facts of the ids that exist, in the order asked. */
  get(ids: string[]): Promise<Fact[]> {
    return readOnce(
      ids,
      (id) => this.loaded.get(id),
      this.loaded,
      (missing) => this.store.getFacts(this.bankId, missing),
    );
  }

  /** The facets of the ids that exist, in the order asked (with entity ids when `entities` is set); a whole fact
   * already read serves as its facets. */
  facets(ids: string[], entities: boolean): Promise<FactFacets[]> {
    return readOnce(
      ids,
      (id) => this.loaded.get(id) ?? this.withEntities.get(id) ?? (entities ? undefined : this.narrow.get(id)),
      entities ? this.withEntities : this.narrow,
      (missing) => this.store.factFacets(this.bankId, missing, entities),
    );
  }
}

/** The records of the ids that exist, in the order asked: those `known` has, and the rest read in one batch whose
 * promises `cache` keeps for later asks. */
async function readOnce<T extends { id: string }>(
  ids: string[],
  known: (id: string) => Promise<T | undefined> | undefined,
  cache: Map<string, Promise<T | undefined>>,
  read: (missing: string[]) => Promise<T[]>,
): Promise<T[]> {
  const missing = [...new Set(ids.filter((id) => !known(id)))];
  if (missing.length) {
    const batch = read(missing).then((rows) => new Map(rows.map((r) => [r.id, r])));
    for (const id of missing)
      cache.set(
        id,
        batch.then((m) => m.get(id)),
      );
  }
  const records: Array<T | undefined> = await Promise.all(ids.map((id) => known(id)));
  return records.filter((r): r is T => r !== undefined);
}
