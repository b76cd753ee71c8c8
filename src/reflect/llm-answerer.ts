// The LLM answerer: an agentic loop. Each step the model replies {tool, args} (search_observations,
// recall_facts, expand) or {done: {answer, cited}}, validated by zod through generateObject; tool outcomes go
// back as messages. Bounded by steps (the last step asks for the answer; a tool call then is not run) and by
// wall time (the call in flight is aborted). A loop cut short answers with the memories it found, quoted, and
// says so in the trace; a reply still malformed after its correction fails the request (LlmOutputError).
import { CairnError } from '../core/index.ts';
import { type UsageLedger, type ChatMessage, type LlmProvider, type LlmUsage, generateObject, type GeneratedObject } from '../llm/index.ts';
import type { AnswerDraft, AnswerInput, Answerer } from './answerer.ts';
import { LAST_STEP, questionMessage, systemPrompt, toolResultMessage } from './prompt.ts';
import { honestStructuredAnswer, quotedAnswer } from './quoted-answer.ts';
import { isDone, stepSchema, type DoneStep, type ToolStep } from './step-schema.ts';
import type { Memory } from './types.ts';

export interface LlmAnswererOptions {
  /** Records every call (with the bank id) to this ledger. */
  ledger?: UsageLedger;
  /** Model turns allowed, overriding the budget's (REFLECT_BUDGETS). */
  maxSteps?: number;
  /** Wall time of the whole loop, in milliseconds (default 120 000). */
  timeLimitMs?: number;
  /** Sampling temperature (default 0.2). */
  temperature?: number;
}

export const DEFAULT_TIME_LIMIT_MS = 120_000;

const addUsage = (a: LlmUsage, b: LlmUsage): LlmUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cachedTokens: a.cachedTokens + b.cachedTokens,
});

export class LlmAnswerer implements Answerer {
  readonly name: string;

  constructor(
    readonly llm: LlmProvider,
    readonly options: LlmAnswererOptions = {},
  ) {
    this.name = `llm:${llm.provider}:${llm.model}`;
  }

  async answer(input: AnswerInput): Promise<AnswerDraft> {
    const { bank, tools, trace } = input;
    const steps = Math.max(1, this.options.maxSteps ?? input.limits.steps);
    const deadline = Date.now() + (this.options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS);
    const schema = stepSchema(input.answerSchema);
    const messages: ChatMessage[] = [
      { role: 'system', content: systemPrompt({ bank, queryTime: input.queryTime, steps, responseSchema: input.responseSchema }) },
      { role: 'user', content: questionMessage(input.query) },
    ];
    let usage: LlmUsage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };

    for (let step = 1; step <= steps; step++) {
      const last = step === steps;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return this.cutShort(input, step, 'time', 'the time limit was reached', usage);
      const started = performance.now();
      let reply: GeneratedObject<ToolStep | DoneStep>;
      try {
        reply = await generateObject(
          this.llm,
          {
            operation: 'reflect',
            bankId: bank.id,
            schemaName: 'reflect_step',
            messages: last ? [...messages, { role: 'user', content: LAST_STEP }] : messages,
            temperature: this.options.temperature ?? 0.2,
            ...(input.maxTokens ? { maxTokens: input.maxTokens } : {}),
          },
          schema,
          { signal: AbortSignal.timeout(remaining), ...(this.options.ledger ? { ledger: this.options.ledger } : {}) },
        );
      } catch (error) {
        if (Date.now() >= deadline) return this.cutShort(input, step, 'time', 'the time limit was reached during a model call', usage);
        throw error;
      }
      usage = addUsage(usage, reply.usage);
      const value = reply.value;
      if (isDone(value)) {
        trace.push({
          step,
          action: 'done',
          cited: value.done.cited,
          ms: Math.round(performance.now() - started),
          ...(value.reason ? { reason: value.reason } : {}),
          usage: reply.usage,
        });
        return { answer: value.done.answer, cited: value.done.cited, usage };
      }
      if (last) return this.cutShort(input, step, 'steps', `the model asked for ${value.tool} at its last step`, usage);
      const outcome = await tools.run(value, step, { ...(value.reason ? { reason: value.reason } : {}), usage: reply.usage });
      messages.push({ role: 'assistant', content: JSON.stringify(value) }, { role: 'user', content: toolResultMessage(value, outcome) });
    }
    return this.cutShort(input, steps, 'steps', 'no answer within the step limit', usage);
  }

  /** The loop ended without an answer: quote what the tools found, observations first. */
  private cutShort(input: AnswerInput, step: number, why: 'steps' | 'time', detail: string, usage: LlmUsage): AnswerDraft {
    input.trace.push({ step, action: 'stopped', why, detail });
    const seen = [...input.tools.seen.values()];
    const observations = seen.filter((m) => m.kind === 'observation');
    const facts = seen.filter((m) => m.kind !== 'observation');
    const preface = `_The model did not finish (${detail}); these are the memories it found._`;
    const markdown = quotedAnswer(input.query, observations, facts, preface);
    const cited: Memory[] = [...observations, ...facts];
    let answer: unknown = markdown;
    if (input.answerSchema) {
      answer = honestStructuredAnswer(markdown, cited, input.answerSchema);
      if (answer === undefined)
        throw new CairnError(
          'unavailable',
          `reflect stopped before the model answered (${detail}), and responseSchema needs the model's answer`,
        );
    }
    return { answer, cited: cited.map((m) => m.id), usage };
  }
}
