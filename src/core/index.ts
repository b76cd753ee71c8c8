// The face of src/core: domain types, ids, time, errors, typed events, activity, and the small helpers every module
// shares. Other folders import core through this file only (src/layout.test.ts checks it).
export { Activity, type ActivityWatch, readsFirst, StepAside, type StepAsideOptions } from './activity.ts';
export { type BatchRanking, batchTop, PRODUCT_SLACK } from './batch-top.ts';
export { cosine, dot } from './dot.ts';
export { badRequest, bankDeletedError, CairnError, notFound, notFoundOrDeleted, quoteId, shortened } from './errors.ts';
export { Events } from './events.ts';
export {
  BANK_ID_PATTERN,
  BANK_ID_RULE,
  checkBankId,
  contentHash,
  derivedId,
  isBankId,
  LONE_SURROGATE,
  newId,
  ONLY_DOTS,
  payloadHash,
  wellFormed,
  wellFormedValue,
} from './ids.ts';
export { remembered } from './remembered.ts';
export { SerialQueue } from './serial.ts';
export { DAY_MS, ISO_HINT, isoInstant, nowIso, parseTimestamp } from './time.ts';
export { TopK } from './top-k.ts';
export type {
  Bank,
  BankConfig,
  Chunk,
  ChunkProgress,
  DocumentRecord,
  Entity,
  Evidence,
  EvidenceRole,
  Fact,
  FactKind,
  FactLink,
  FactStatus,
  LinkType,
  Observation,
  ObservationRevision,
  Operation,
  OperationStatus,
  Stance,
} from './types.ts';
export { isUnfinished, withoutNulls } from './types.ts';
