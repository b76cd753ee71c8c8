// What the LLM extractor asks for: the reply schema (validated with zod, sent to the provider as JSON schema)
// and the messages: the five W's of each fact, pronouns resolved, relative dates made absolute from the
// item's timestamp, a verbatim quote to anchor it in the chunk, the bank's mission and mode, and code kept out of
// facts and entities.
import { z } from 'zod';
import type { ChatMessage } from '../llm/index.ts';
import type { ExtractInput, RetainMode } from './extractor.ts';
import { isDateLike } from './occurred-range.ts';

const DateText = z.string().refine(isDateLike, { message: 'must be an ISO 8601 date: YYYY, YYYY-MM, YYYY-MM-DD or a full date-time' });

export const LlmFactSchema = z.object({
  what: z.string().trim().min(1),
  kind: z.enum(['world', 'experience']),
  quote: z.string(),
  when: z.string().nullish(),
  occurredStart: DateText.nullish(),
  occurredEnd: DateText.nullish(),
  where: z.string().nullish(),
  who: z.array(z.string()).nullish(),
  why: z.string().nullish(),
  entities: z.array(z.object({ name: z.string(), type: z.string().nullish() })).nullish(),
  causedBy: z.array(z.number().int().min(0)).nullish(),
});

export const ExtractionSchema = z.object({ facts: z.array(LlmFactSchema) });

export type LlmFact = z.infer<typeof LlmFactSchema>;
export type Extraction = z.infer<typeof ExtractionSchema>;

const MODE_RULES: Record<RetainMode, string> = {
  concise:
    'Mode: concise. Keep only facts worth remembering later. Merge closely related details into one fact. ' +
    'Skip greetings, small talk, filler and anything said only to keep the conversation going.',
  verbose: 'Mode: verbose. Keep every fact the text states, each with all of its details (when, where, who, why) ' + 'written into "what".',
  verbatim:
    'Mode: verbatim. The stored fact will be your "quote", word for word, so make each quote the complete ' +
    'sentence or sentences the fact comes from. Still fill in every other field.',
};

export function extractionMessages(input: ExtractInput): ChatMessage[] {
  const mode = input.mode ?? 'concise';
  const who = input.speaker
    ? `The text was said or written by ${input.speaker}${input.fromAgent ? ' (the AI agent itself)' : ''}.`
    : input.fromAgent
      ? 'The text was said by the AI agent itself.'
      : 'The speaker is not named.';
  const system = [
    "You extract facts from one piece of a conversation or document, for an AI agent's long-term memory.",
    who,
    `It was said or written at ${input.timestamp}. Read every relative date ("yesterday", "last June", ` +
      '"two weeks ago", "next Friday") from that moment and turn it into an absolute date.',
    ...(input.context ? [`Context: ${input.context}`] : []),
    ...(input.mission
      ? [`This memory exists for: ${input.mission}\nKeep only the facts that serve this purpose; leave the rest out.`]
      : []),
    MODE_RULES[mode],
    '',
    'Reply with JSON: {"facts": [...]}, one object per fact, in the order the text tells them ([] when nothing is worth keeping):',
    '- what: the fact as one self-contained statement that makes sense with no other context. Resolve every ' +
      'pronoun and reference ("I", "she", "my sister", "the company", "there") to the name it stands for.',
    '- kind: "experience" for what the agent itself did, said, saw or felt; "world" for everything else ' +
      '(the user, other people, the world).',
    '- quote: the exact words of the text this fact comes from, copied character for character.',
    '- when: when it happened, in words, as precise as the text allows; null if the text does not say.',
    '- occurredStart, occurredEnd: the same as absolute ISO 8601 dates (YYYY, YYYY-MM, YYYY-MM-DD or a ' +
      'date-time); null when unknown. A single day or month needs only occurredStart.',
    '- where: the place, or null. who: the people involved (names), or []. why: the reason or purpose, or null.',
    '- entities: every person, place, organisation, product or other named thing in the fact: {"name", "type"}. ' +
      'Libraries, tools, services and files count (Express, pg_dump, package.json); variables, functions, language ' +
      'keywords and error codes do not.',
    '- causedBy: 0-based indexes of earlier facts in your list that caused this one, or [].',
    'Code blocks, commands, logs and stack traces are not facts: never copy code into "what"; when it matters, ' +
      'state in words what the code does or changes, or which error occurred, and quote the sentence around it.',
  ];
  return [
    { role: 'system', content: system.join('\n') },
    { role: 'user', content: `Text:\n<<<\n${input.text}\n>>>` },
  ];
}
