// The reconcile step for keyword indexes of deleted banks, through the store port. A store that drops a bank's
// indexes outside the bank's own transaction can leave them behind (server mode: a process dying between sweeping
// a deleted bank's nodes and dropping its full-text indexes); one that drops them with the bank (the embedded
// store) has none, and implements neither method of the OrphanIndexes role.
import type { OrphanIndexes } from './ports.ts';

/** The orphan keyword indexes: found (dry run) or dropped. */
export async function reconcileKeywordIndexes(store: OrphanIndexes, dryRun: boolean): Promise<string[]> {
  const found = (await store.orphanKeywordIndexes?.()) ?? [];
  if (dryRun || found.length === 0) return found;
  if (!store.dropOrphanKeywordIndexes) throw new Error('the store finds orphan keyword indexes but cannot drop them');
  return store.dropOrphanKeywordIndexes(found);
}
