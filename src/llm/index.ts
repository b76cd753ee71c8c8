// The face of src/llm: the LLM port, structured output, the usage ledger port and report, per-bank LLM overrides.
// Other folders import llm through this file only (src/layout.test.ts checks it).
export { bankOverride } from './config.ts';
export {
  BUCKET_START,
  emptyTotals,
  USAGE_BUCKETS,
  type UsageBucket,
  type UsageEntry,
  type UsageGroup,
  type UsageLedger,
  type UsagePoint,
  type UsageQuery,
  type UsageReport,
  type UsageTotals,
} from './ledger.ts';
export type { ChatMessage, LlmOperation, LlmProvider, LlmUsage } from './ports.ts';
export { type GeneratedObject, generateObject, type GenerateObjectOptions } from './structured.ts';
export type { Usage } from './usage.ts';
