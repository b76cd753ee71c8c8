// Is an observation stale? It is when facts about its entities are still waiting to be consolidated: what it
// says may be about to change. Recall marks such results so callers can look at the newest raw facts too.
import type { ConsolidationQueue, RecallReads } from '../store/index.ts';

/** Newest facts per entity looked at (waiting facts are the newest ones). */
const WINDOW = 64;

/** Ids of the given observations that have facts about their entities waiting in the consolidation queue. */
export async function staleObservations(
  store: ConsolidationQueue & RecallReads,
  bankId: string,
  observations: Array<{ id: string; entities: string[] }>,
): Promise<Set<string>> {
  const stale = new Set<string>();
  if (observations.length === 0 || !(await store.hasWaiting(bankId))) return stale;
  const waitingByEntity = new Map<string, boolean>();
  const hasWaiting = async (entityId: string): Promise<boolean> => {
    let found = waitingByEntity.get(entityId);
    if (found === undefined) {
      const newest = await store.newestFacts(bankId, { kinds: ['world', 'experience'], entityId, limit: WINDOW });
      found = newest.some((f) => f.consolidatedAt === null);
      waitingByEntity.set(entityId, found);
    }
    return found;
  };
  for (const o of observations) {
    for (const e of o.entities) {
      if (await hasWaiting(e)) {
        stale.add(o.id);
        break;
      }
    }
  }
  return stale;
}
