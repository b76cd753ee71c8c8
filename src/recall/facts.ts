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
  async get(ids: string[]): Promise<Fact[]> {
    const missing = [...new Set(ids.filter((id) => !this.loaded.has(id)))];
    if (missing.length) {
      const batch = this.store.getFacts(this.bankId, missing).then((facts) => new Map(facts.map((f) => [f.id, f])));
      for (const id of missing)
        this.loaded.set(
          id,
          batch.then((m) => m.get(id)),
        );
    }
    const facts = await Promise.all(ids.map((id) => this.loaded.get(id)));
    return facts.filter((f): f is Fact => f !== undefined);
  }

  /** The facets of the ids that exist, in the order asked (with entity ids when `entities` is set). */
  async facets(ids: string[], entities: boolean): Promise<FactFacets[]> {
    const known = (id: string): Promise<FactFacets | undefined> | undefined =>
      this.loaded.get(id) ?? this.withEntities.get(id) ?? (entities ? undefined : this.narrow.get(id));
    const missing = [...new Set(ids.filter((id) => !known(id)))];
    if (missing.length) {
      const batch = this.store.factFacets(this.bankId, missing, entities).then((rows) => new Map(rows.map((f) => [f.id, f])));
      const cache = entities ? this.withEntities : this.narrow;
      for (const id of missing)
        cache.set(
          id,
          batch.then((m) => m.get(id)),
        );
    }
    const facets = await Promise.all(ids.map((id) => known(id)));
    return facets.filter((f): f is FactFacets => f !== undefined);
  }
}
