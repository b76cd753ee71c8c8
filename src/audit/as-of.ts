// What an observation said at a past instant (recall's asOf): the newest revision made by then. Null when the
// observation did not exist yet.
import type { AuditReads } from '../store/index.ts';

export async function observationTextAsOf(store: AuditReads, bankId: string, observationId: string, asOf: string): Promise<string | null> {
  const at = new Date(asOf).toISOString();
  const history = await store.historyOf(bankId, observationId);
  const before = history.filter((r) => r.at <= at);
  return before.length ? before[before.length - 1].newText : null;
}
