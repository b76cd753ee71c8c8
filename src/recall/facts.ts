// Facts read once per recall: the arms and the result builder ask for overlapping sets of facts (seeds,
// reached facts, candidates), so each id is read from the store at most once per request.
import type { Fact } from '../core/index.ts';
import type { RecallReads } from '../store/index.ts';

export class FactLoader {
  private readonly loaded = new Map<string, Promise<Fact | undefined>>();

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
}
