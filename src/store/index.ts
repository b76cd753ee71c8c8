// The face of src/store: the storage ports (by role), the session order of old archives, the reconcile report. Other
// folders import store through this file only (src/layout.test.ts checks it).
export {
  type AuditReads,
  type BankStore,
  type Claim,
  type ConsolidationQueue,
  type DeadLetter,
  type DeleteResult,
  type FactFilter,
  type FactPage,
  type Forgetting,
  FORGOTTEN_TEXT,
  type Heartbeat,
  type Heartbeats,
  type ItemWrite,
  type KeyedOperation,
  type LinkQuery,
  type ListFactsQuery,
  type MemoryStore,
  type MemoryWrites,
  type ObservationWrite,
  type OperationStore,
  type RecallReads,
  type Scored,
  type SessionInfo,
  type Tombstone,
  type VectorRecord,
  type WriteLease,
  type WriteLeases,
} from './ports.ts';
export type { ReconcileReport } from './reconcile.ts';
export { legacySession } from './session-order.ts';
