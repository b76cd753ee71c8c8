// The face of src/consolidate: consolidation's use cases and worker, and the statement, stem and staleness helpers
// recall, reflect and audit share. Other folders import consolidate through this file only (src/layout.test.ts
// checks it).
export type { Consolidation } from './consolidation.ts';
export type { ConsolidationStatus } from './status.ts';
export type { Consolidator } from './consolidator.ts';
export { staleObservations } from './staleness.ts';
export { parseStatement, subjectKey } from './statement.ts';
export { sharedCount, stemSet } from './stems.ts';
export { statedPart, storyTime } from './synthesis.ts';
export type { ConsolidationWorker, WorkerOptions } from './worker.ts';
