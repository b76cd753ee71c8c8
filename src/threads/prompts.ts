// What the LLM observer, reflector and working-memory updater are asked, and the shapes they must answer in.
// Each bank can add its own instructions, which are appended to the system prompt.
import { z } from 'zod';
import { toolCallsText } from './accounting.ts';
import { speakerOf } from './offline-observer.ts';
import type { ThreadMessage } from './types.ts';

export const ObservationReply = z.object({
  observations: z.string().describe('A few dated sentences; empty when nothing is worth keeping'),
  currentTask: z.string().nullable().describe('What the user is working on right now, or null'),
  suggestedResponse: z.string().nullable().describe('What the assistant should do or say next, or null'),
});

export const ReflectionReply = z.object({
  reflection: z.string().describe('The condensed memory'),
});

export const WorkingMemoryReply = z.object({
  document: z.string().describe('The full updated markdown document'),
});

const withInstructions = (prompt: string, instructions: string): string =>
  instructions.trim() ? `${prompt}\n\nAdditional instructions for this memory:\n${instructions.trim()}` : prompt;

export function observerSystemPrompt(instructions: string): string {
  return withInstructions(
    [
      'You maintain the memory of a long conversation. You receive a batch of new messages and write an observation:',
      'a few short, dated sentences that let someone who never reads these messages continue the conversation well.',
      'Keep: decisions made; what the user wants and why (intent, goals); facts stated (names, numbers, dates, places,',
      'preferences); progress and outcomes of tasks; work still pending; constraints that must still be honoured.',
      'Leave out: greetings and small talk, verbatim tool output, code blocks, and anything already in the earlier observations.',
      'Attribute statements to their speaker, write absolute dates from the message timestamps, and when new information',
      'contradicts older information, state the new information.',
      'Also give currentTask (what the user is working on now, or null) and suggestedResponse (what the assistant',
      'should say or do next, or null). Reply with JSON only.',
    ].join(' '),
    instructions,
  );
}

export function renderTranscript(messages: ThreadMessage[]): string {
  return messages
    .map((m) => {
      const calls = toolCallsText(m.toolCalls);
      const body = m.role === 'tool' ? `[tool output, ${m.content.length} characters]` : m.content;
      return `[${m.timestamp}] ${speakerOf(m)} (${m.role}): ${body}${calls ? `\n  tool calls: ${calls.replace(/\n/g, '; ')}` : ''}`;
    })
    .join('\n');
}

export function observerUserPrompt(previous: string[], currentTask: string | null, messages: ThreadMessage[]): string {
  const earlier = previous.length ? previous.join('\n---\n') : '(none yet)';
  return `Earlier observations:\n${earlier}\n\nCurrent task so far: ${currentTask ?? '(unknown)'}\n\nNew messages:\n${renderTranscript(messages)}`;
}

export function reflectorSystemPrompt(instructions: string, targetTokens: number): string {
  return withInstructions(
    [
      'You condense the memory of a long conversation. You receive observations (or earlier reflections), oldest first,',
      'and write one reflection that replaces them all. Merge statements that overlap; when statements contradict,',
      'keep the later one; keep names, numbers, dates, decisions, goals, open tasks and constraints; drop what no',
      `longer matters. Keep dates. Aim for at most about ${targetTokens} tokens. Reply with JSON only.`,
    ].join(' '),
    instructions,
  );
}

export function reflectorUserPrompt(items: Array<{ text: string; firstAt: string | null; lastAt: string | null }>): string {
  return items.map((i, n) => `#${n + 1} (${i.firstAt ?? '?'} to ${i.lastAt ?? '?'})\n${i.text}`).join('\n\n');
}

export function workingMemorySystemPrompt(maxTokens: number): string {
  return [
    'You keep a working-memory document for an assistant: a markdown page of lasting facts about the user and their',
    'work (profile, preferences, goals, standing instructions, notes). Update it with anything lasting from the new',
    'messages; keep the template headings; keep existing notes unless the new messages change them; never add small talk.',
    'The document follows the latest facts: where the user lives, where they work, their job title, manager, partner,',
    'age, name and each favourite hold one current value, so when a new message gives a new value, replace the old',
    'statement instead of keeping both, and mention an earlier value only as previous (e.g. "Lives in Lisbon (previously',
    'Porto, Leeds)").',
    maxTokens > 0 ? `Keep the document under about ${maxTokens} tokens.` : '',
    'Reply with JSON only, holding the full updated document.',
  ]
    .filter(Boolean)
    .join(' ');
}

export function workingMemoryUserPrompt(document: string, template: string, messages: ThreadMessage[]): string {
  return `Template:\n${template}\n\nCurrent document:\n${document || '(empty)'}\n\nNew messages:\n${renderTranscript(messages)}`;
}
