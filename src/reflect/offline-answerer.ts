// The offline answerer (no LLM): one search of observations, one of raw facts, and an answer that quotes them,
// the most relevant to the question first (the current statement of an asked attribute, then what covers the
// question best), each with its date and id, trimmed from the least relevant end to maxTokens; or that memory
// holds nothing relevant. With a response schema it
// answers only with JSON it can build honestly from those memories; any other schema needs a model, and the
// caller is told so (400).
import { badRequest } from '../core/index.ts';
import { countTokens } from '../text/index.ts';
import type { AnswerDraft, AnswerInput, Answerer } from './answerer.ts';
import { honestStructuredAnswer, rankedAnswer } from './quoted-answer.ts';
import { rankForQuestion } from './relevance.ts';
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
    const cited: Memory[] = rankForQuestion(query, observations, facts).memories;
    // The least relevant go first when the answer must be short.
    while (input.maxTokens && cited.length > 1 && countTokens(rankedAnswer(query, cited)) > input.maxTokens) cited.pop();
    const markdown = rankedAnswer(query, cited);
    const ids = cited.map((m) => m.id);
    if (!input.answerSchema) return { answer: markdown, cited: ids };
    const structured = honestStructuredAnswer(markdown, cited, input.answerSchema);
    if (structured === undefined) throw badRequest(STRUCTURED_NEEDS_LLM);
    return { answer: structured, cited: ids };
  }
}
