// The reflect loop's messages: the system prompt (the bank's mission and disposition, the date, the tools and
// the step protocol, the answer format) and the messages that carry each tool's outcome back to the model.
import type { Bank } from '../core/index.ts';
import type { ToolOutcome } from './answerer.ts';
import { dispositionOf, dispositionRules } from './disposition.ts';
import { whenOf } from './quoted-answer.ts';
import type { ToolCall } from './types.ts';

export interface PromptOptions {
  bank: Bank;
  queryTime: string;
  steps: number;
  /** The JSON schema the answer must match, or null for markdown. */
  responseSchema: Record<string, unknown> | null;
}

export function systemPrompt(o: PromptOptions): string {
  const lines = [
    "You answer questions from an AI agent's long-term memory, using tools to look things up.",
    ...(o.bank.mission ? [`This memory exists for: ${o.bank.mission}`] : []),
    `The question is asked at ${o.queryTime}; read "now", "recently" and "last week" from that moment.`,
    '',
    `Work in steps (at most ${o.steps}). Each step, reply with exactly one JSON object, one of:`,
    '{"tool": "search_observations", "args": {"query": "..."}, "reason": "..."}: what memory has concluded ' +
      '(consolidated observations, each backed by facts). Look here first.',
    '{"tool": "recall_facts", "args": {"query": "..."}, "reason": "..."}: raw facts (about the world and the ' +
      "agent's own experiences) with their dates, for details, exact wording and what happened most recently.",
    '{"tool": "expand", "args": {"id": "...", "scope": "chunk"}, "reason": "..."}: for an observation, the facts ' +
      'behind it; for a fact, the text it came from ("scope": "document" for the whole document).',
    '{"done": {"answer": ..., "cited": ["<id>", ...]}}: your final answer and the ids of the memories it rests on.',
    '"args.limit" (1-20) asks a search for more or fewer memories.',
    '',
    'Rules:',
    '- Use only what the tools return. Never invent a memory or an id; cite only ids the tools showed you.',
    '- Observations first; raw facts for detail and recency. When memories disagree over time, the most recent ' + 'usually holds: say so.',
    '- If memory does not hold the answer, say that plainly.',
    ...dispositionRules(dispositionOf(o.bank.config)).map((rule) => `- ${rule}`),
    '',
    o.responseSchema
      ? `"answer" must be a JSON value matching this JSON schema:\n${JSON.stringify(o.responseSchema)}`
      : '"answer" is a markdown string; put the id of each memory you rely on in brackets after the statement, e.g. [fct_123].',
  ];
  return lines.join('\n');
}

export const questionMessage = (query: string): string => `Question: ${query}`;

export const LAST_STEP = 'This is your last step: reply now with {"done": {"answer": ..., "cited": [...]}} from what you have found.';

/** What the model reads after a tool call: the memories (id, kind, when, text) and any source text. */
export function toolResultMessage(call: ToolCall, outcome: ToolOutcome): string {
  const result: Record<string, unknown> = {
    memories: outcome.memories.map((m) => ({ id: m.id, kind: m.kind, when: whenOf(m), text: m.text })),
  };
  if (outcome.source) result.source = outcome.source;
  if (outcome.error) result.error = outcome.error;
  if (outcome.memories.length === 0 && !outcome.error) result.note = 'nothing found; try other words or the other tool';
  return `Result of ${call.tool}:\n${JSON.stringify(result)}`;
}
