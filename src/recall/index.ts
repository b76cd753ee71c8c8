// The face of src/recall: recall, its request and response types, and the attribute matching reflect uses. Other
// folders import recall through this file only (src/layout.test.ts checks it).
export { askedAttribute, statesAttribute } from './attribute.ts';
export { recall } from './recall.ts';
export type { ArmName, Budget, RecallRequest, RecallResponse, RecallSettings, RecallTimings } from './types.ts';
