// The face of src/retain: the retain pipeline and its types, the extractor port, the bank write lease, a bank's
// retain mode. Other folders import retain through this file only (src/layout.test.ts checks it).
export type { Extractor } from './extractor.ts';
export { DocumentsInFlight } from './in-flight.ts';
export { BankWriteLeases } from './lease.ts';
export { retain } from './pipeline.ts';
export { retainModeOf } from './retain-mode.ts';
export type { Progress, RetainItem, RetainRequest, RetainResult } from './types.ts';
