// Reflect's request, response and trace shapes, and what each budget lets it do. The request is validated at
// the HTTP edge (src/api/routes/reflect.ts); the use case (reflect.ts) applies the defaults.
import type { FactKind } from '../core/index.ts';
import type { LlmUsage } from '../llm/index.ts';
import type { Budget } from '../recall/index.ts';

export interface ReflectRequest {
  query: string;
  /** How much searching reflect may do (default mid); see REFLECT_BUDGETS. */
  budget?: Budget;
  /** Cap on the answer's length in tokens (LLM: each reply; offline: the memories quoted). */
  maxTokens?: number;
  /** A JSON schema the answer must match: the answer is then that JSON value instead of markdown. */
  responseSchema?: Record<string, unknown>;
  /** The instant "now" is for the question ("last week" in it, recency); default now. */
  queryTime?: string;
}

export interface ReflectLimits {
  /** Model turns (each a tool call or the final answer; a malformed reply's one correction is part of its turn). */
  steps: number;
  /** Memories a search returns unless the model asks for another number (at most 20). */
  perSearch: number;
  /** Token budget of the texts one search returns. */
  searchTokens: number;
}

export const REFLECT_BUDGETS: Record<Budget, ReflectLimits> = {
  low: { steps: 4, perSearch: 5, searchTokens: 800 },
  mid: { steps: 8, perSearch: 8, searchTokens: 1500 },
  high: { steps: 12, perSearch: 12, searchTokens: 3000 },
};

/** A memory as the tools show it: an observation or a fact. */
export interface Memory {
  id: string;
  kind: FactKind;
  text: string;
  occurredStart: string | null;
  occurredEnd: string | null;
  mentionedAt: string;
}

export type ToolName = 'search_observations' | 'recall_facts' | 'expand';

export type ToolCall =
  | { tool: 'search_observations' | 'recall_facts'; args: { query: string; limit?: number } }
  | { tool: 'expand'; args: { id: string; scope?: 'chunk' | 'document' } };

/** One entry of the trace: every tool call, the answer, citations dropped, and why a loop stopped early. */
export type ReflectStep =
  | {
      step: number;
      action: ToolName;
      args: ToolCall['args'];
      /** Ids of the memories the call returned. */
      found: string[];
      ms: number;
      /** The model's stated reason for the call. */
      reason?: string;
      error?: string;
      /** Tokens of the model turn that asked for the call. */
      usage?: LlmUsage;
    }
  | { step: number; action: 'done'; cited: string[]; ms: number; reason?: string; usage?: LlmUsage }
  | { step: number; action: 'dropped_citations'; ids: string[]; why: string }
  | { step: number; action: 'stopped'; why: 'steps' | 'time'; detail: string };

export interface ReflectResponse {
  /** Markdown, or the JSON value matching responseSchema. */
  answer: unknown;
  /** The ids the answer rests on (every one exists in the bank). */
  basedOn: { observations: string[]; facts: string[] };
  trace: ReflectStep[];
  /** 'offline', or 'llm:<provider>:<model>'. */
  answerer: string;
  /** Tokens the model used, summed over every call (LLM answerer only). */
  usage?: LlmUsage;
}
