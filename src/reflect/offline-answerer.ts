// The offline answerer (no LLM): one search of observations, one of raw facts, and an answer that quotes them,
// observations first, each with its date and id, trimmed from the end to maxTokens. With a response schema it
// answers only with JSON it can build honestly from those memories; any other schema needs a model, and the
// caller is told so (400).
import { badRequest } from '../core/errors.ts';
import { countTokens } from '../text/tokens.ts';
import type { AnswerDraft, AnswerInput, Answerer } from './answerer.ts';
import { honestStructuredAnswer, quotedAnswer } from './quoted-answer.ts';
import type { Memory } from './types.ts';

export const STRUCTURED_NEEDS_LLM =
  'responseSchema: this schema needs an LLM to fill it (set GROQ_API_KEY or CAIRN_LLM_BASE_URL); without one, ' +
  'reflect can only answer with {"answer": string, "citations": [...]}, {"answer": string} or a plain string';

export class OfflineAnswerer implements Answerer {
  readonly name = 'offline';

  async answer(input: AnswerInput): Promise<AnswerDraft> {
    const { query, tools } = input;
    const observations = (await tools.run({ tool: 'search_observations', args: { query } }, 1)).memories;
    const facts = (await tools.run({ tool: 'recall_facts', args: { query } }, 2)).memories;
    // Observations come first, so when the answer must be short the last facts go first.
    while (input.maxTokens && countTokens(quotedAnswer(query, observations, facts)) > input.maxTokens) {
      if (facts.length) facts.pop();
      else if (observations.length) observations.pop();
      else break;
    }
    const markdown = quotedAnswer(query, observations, facts);
    const cited: Memory[] = [...observations, ...facts];
    const ids = cited.map((m) => m.id);
    if (!input.answerSchema) return { answer: markdown, cited: ids };
    const structured = honestStructuredAnswer(markdown, cited, input.answerSchema);
    if (structured === undefined) throw badRequest(STRUCTURED_NEEDS_LLM);
    return { answer: structured, cited: ids };
  }
}
