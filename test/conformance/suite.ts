// The store conformance suite: the behaviours every MemoryStore must have, whatever it is built on, one block per
// role of the store port (src/store/ports.ts), each in roles/. The embedded store runs it in CI (sqlite.test.ts);
// the server store runs it against real Neo4j and Qdrant when they are configured (server.test.ts). Each test
// works in banks of its own, named for this run, so a shared server holding other data (or an earlier run's)
// changes nothing.
import { describe } from 'node:test';
import { conformanceContext, type StoreHarness } from './context.ts';
import { auditReadsConformance } from './roles/audit-reads.ts';
import { bankStoreConformance } from './roles/bank-store.ts';
import { consolidationQueueConformance } from './roles/consolidation-queue.ts';
import { forgettingConformance } from './roles/forgetting.ts';
import { heartbeatsConformance } from './roles/heartbeats.ts';
import { maintenanceConformance } from './roles/maintenance.ts';
import { memoryWritesConformance } from './roles/memory-writes.ts';
import { operationStoreConformance } from './roles/operation-store.ts';
import { recallReadsConformance } from './roles/recall-reads.ts';
import { writeLeasesConformance } from './roles/write-leases.ts';

export function storeConformance(label: string, harness: StoreHarness): void {
  describe(`store conformance: ${label}`, () => {
    const ctx = conformanceContext(harness);
    bankStoreConformance(ctx);
    memoryWritesConformance(ctx);
    recallReadsConformance(ctx);
    auditReadsConformance(ctx);
    forgettingConformance(ctx);
    consolidationQueueConformance(ctx);
    heartbeatsConformance(ctx);
    writeLeasesConformance(ctx);
    operationStoreConformance(ctx);
    // Last: its restart closes the store and opens it again.
    maintenanceConformance(ctx);
  });
}
