// The face of src/api: the HTTP app, its error helpers and the request schemas the CLI checks input with. Other
// folders import api through this file only (src/layout.test.ts checks it).
export { createApp } from './app.ts';
export { describeIssues } from './errors.ts';
export { RecallRequestSchema, RetainItemSchema } from './schemas.ts';
