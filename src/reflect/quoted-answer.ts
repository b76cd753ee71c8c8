// The answers reflect can give without a model: the memories themselves, each quoted with its date and cited
// by id (the LLM answerer's fallback lists observations first and then facts; the offline answer lists them most
// relevant first); and, for a response schema, the few JSON shapes that can be
// built honestly from them ({answer, citations}, {answer}, or the text itself), used only when the schema allows.
import type { z } from 'zod';
import type { Memory } from './types.ts';

const day = (iso: string): string => iso.slice(0, 10);

/** When a memory happened (or, lacking that, when it was said), as short as the range allows. */
export function whenOf(m: Memory): string {
  if (!m.occurredStart) return `mentioned ${day(m.mentionedAt)}`;
  const start = day(m.occurredStart);
  const end = m.occurredEnd ? day(m.occurredEnd) : start;
  if (start === end) return start;
  const wholeMonth = start.endsWith('-01') && start.slice(0, 7) === end.slice(0, 7);
  return wholeMonth ? start.slice(0, 7) : `${start} to ${end}`;
}

const line = (m: Memory): string => `- "${m.text.replace(/\s+/g, ' ').trim()}" (${whenOf(m)}) [${m.id}]`;

export function quotedAnswer(query: string, observations: Memory[], facts: Memory[], preface?: string): string {
  const parts: string[] = preface ? [preface, ''] : [];
  if (observations.length === 0 && facts.length === 0) {
    parts.push(`This bank holds no memories that match "${query}".`);
    return parts.join('\n');
  }
  parts.push(`What this bank's memory holds about "${query}":`);
  if (observations.length) parts.push('', '**Observations**', ...observations.map(line));
  if (facts.length) parts.push('', '**Facts**', ...facts.map(line));
  return parts.join('\n');
}

/**
 * The offline answer: the memories most relevant first (see relevance.ts), the first one set apart as the
 * answer's lead; or, when none shares anything with the question, a plain statement that memory holds nothing
 * relevant to it.
 */
export function rankedAnswer(query: string, memories: Memory[]): string {
  if (memories.length === 0) return `Memory holds nothing relevant to "${query}".`;
  const [lead, ...rest] = memories;
  const parts = [`Most relevant to "${query}":`, line(lead)];
  if (rest.length) parts.push('', 'Also related:', ...rest.map(line));
  return parts.join('\n');
}

/** The first honest JSON answer the schema accepts, or undefined when it accepts none of them. */
export function honestStructuredAnswer(markdown: string, cited: Memory[], schema: z.ZodType): unknown {
  const candidates: unknown[] = [
    { answer: markdown, citations: cited.map((m) => ({ id: m.id, kind: m.kind, text: m.text })) },
    { answer: markdown, citations: cited.map((m) => m.id) },
    { answer: markdown },
    markdown,
  ];
  for (const candidate of candidates) {
    const parsed = schema.safeParse(candidate);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}
