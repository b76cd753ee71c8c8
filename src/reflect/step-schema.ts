// What the model may reply at each step of the reflect loop, as zod schemas (sent as JSON schema, validated,
// corrected once by generateObject): a tool call {tool, args, reason?} or {done: {answer, cited}, reason?}.
// Plain JSON replies rather than native tool calling, so any OpenAI-compatible server can run the loop.
import { z } from 'zod';
import { MAX_PER_SEARCH } from './tools.ts';

const reason = z.string().optional();
const searchArgs = z.object({ query: z.string().trim().min(1), limit: z.number().int().min(1).max(MAX_PER_SEARCH).optional() });

const SearchObservations = z.object({ tool: z.literal('search_observations'), args: searchArgs, reason });
const RecallFacts = z.object({ tool: z.literal('recall_facts'), args: searchArgs, reason });
const Expand = z.object({
  tool: z.literal('expand'),
  args: z.object({ id: z.string().trim().min(1), scope: z.enum(['chunk', 'document']).optional() }),
  reason,
});

export const ToolStepSchema = z.union([SearchObservations, RecallFacts, Expand]);
export type ToolStep = z.infer<typeof ToolStepSchema>;

export interface DoneStep {
  done: { answer: unknown; cited: string[] };
  reason?: string;
}

/** The final answer: markdown, or a value of the caller's schema. */
export function doneSchema(answer: z.ZodType | null): z.ZodType<DoneStep> {
  return z.object({
    done: z.object({ answer: answer ?? z.string().trim().min(1), cited: z.array(z.string()) }),
    reason,
  }) as z.ZodType<DoneStep>;
}

/** Any step: a tool call or the answer. */
export function stepSchema(answer: z.ZodType | null): z.ZodType<ToolStep | DoneStep> {
  return z.union([SearchObservations, RecallFacts, Expand, doneSchema(answer)]);
}

export const isDone = (step: ToolStep | DoneStep): step is DoneStep => 'done' in step;
