// The face of src/api: the HTTP app, its error helpers and the request schemas the CLI and the MCP tools check
// input with. Other folders import api through this file only (src/layout.test.ts checks it).
export { createApp } from './app.ts';
export { describeIssues, errorBody } from './errors.ts';
export { jsonValueProblem } from './json-values.ts';
export { jsonDepthLimit } from './nesting.ts';
export { ReflectRequestSchema } from './routes/reflect.ts';
export {
  BankIdSchema,
  CreateBankSchema,
  MessageList,
  RecallFields,
  RecallRequestSchema,
  RetainItemSchema,
  RetainRequestSchema,
} from './schemas.ts';
