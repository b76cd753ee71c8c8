// Token accounting of thread memory, with the real cl100k tokenizer: what a message costs in a prompt (its
// content, its tool calls, and a fixed per-message overhead for role and separators), and sums over lists.
import { countTokens } from '../text/index.ts';
import type { ToolCall } from './types.ts';

/** Tokens a chat format spends per message on role and delimiters (OpenAI's documented figure is 3-4). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

export function toolCallsText(toolCalls: ToolCall[] | null | undefined): string {
  if (!toolCalls?.length) return '';
  return toolCalls.map((c) => `${c.name}(${c.arguments === undefined ? '' : JSON.stringify(c.arguments)})`).join('\n');
}

export function messageTokenCount(message: { content: string; toolCalls?: ToolCall[] | null }): number {
  return countTokens(message.content) + countTokens(toolCallsText(message.toolCalls)) + MESSAGE_OVERHEAD_TOKENS;
}

export const sumTokens = (items: ReadonlyArray<{ tokens: number }>): number => items.reduce((n, i) => n + i.tokens, 0);
