// The answerer port: given the question, the bank and the reflect tools, produce an answer and the ids it
// rests on. The offline answerer (no LLM) quotes the top observations and facts; the LLM answerer runs an
// agentic loop over the same tools. Checking citations and the response schema is the use case's job (reflect.ts).
import type { z } from 'zod';
import type { Bank } from '../core/index.ts';
import type { LlmUsage } from '../llm/index.ts';
import type { Memory, ReflectLimits, ReflectStep, ToolCall } from './types.ts';

export interface ToolOutcome {
  memories: Memory[];
  /** Source text, for expand on a fact. */
  source?: { chunk: string | null; document: string | null; speaker: string | null; timestamp: string | null; context: string | null };
  error?: string;
}

/** The tools an answerer may use; each call is recorded in the trace. */
export interface ReflectTools {
  run(call: ToolCall, step: number, note?: { reason?: string; usage?: LlmUsage }): Promise<ToolOutcome>;
  /** Every memory the tools have returned so far, in the order first seen. */
  readonly seen: ReadonlyMap<string, Memory>;
}

export interface AnswerInput {
  bank: Bank;
  query: string;
  /** The instant the question is asked at (ISO). */
  queryTime: string;
  limits: ReflectLimits;
  maxTokens: number | undefined;
  /** The caller's responseSchema (JSON schema) and its compiled form; null for a markdown answer. */
  responseSchema: Record<string, unknown> | null;
  answerSchema: z.ZodType | null;
  tools: ReflectTools;
  /** Steps are appended here (tools add their own). */
  trace: ReflectStep[];
}

export interface AnswerDraft {
  answer: unknown;
  /** Ids the answerer says it used (checked against the bank before anything is returned). */
  cited: string[];
  usage?: LlmUsage;
}

export interface Answerer {
  /** 'offline' or 'llm:<provider>:<model>'. */
  readonly name: string;
  answer(input: AnswerInput): Promise<AnswerDraft>;
}
