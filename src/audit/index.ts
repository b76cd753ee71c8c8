// The face of src/audit: the audit use cases (engine.audit) and what recall shows of observations. Other folders
// import audit through this file only (src/layout.test.ts checks it).
export { Audit } from './audit.ts';
export { observationExtras, type ObservationExtras } from './recall-extras.ts';
export type { SourceFact } from './source-facts.ts';
