// The reflect use case: resolve the request (budget, queryTime, response schema), let the answerer work with the
// tools, then make the answer accountable: invented ids are dropped and recorded, a structured answer is checked
// against the caller's schema, and basedOn lists the observations and facts the answer rests on.
import { CairnError, type Bank, nowIso, parseTimestamp } from '../core/index.ts';
import type { Answerer } from './answerer.ts';
import { checkCitations } from './citations.ts';
import { checkAnswer, compileResponseSchema } from './response-schema.ts';
import { Toolbox, type ToolboxDeps } from './tools.ts';
import { REFLECT_BUDGETS, type ReflectRequest, type ReflectResponse, type ReflectStep } from './types.ts';

export type ReflectDeps = ToolboxDeps;

export async function reflect(deps: ReflectDeps, bank: Bank, request: ReflectRequest, answerer: Answerer): Promise<ReflectResponse> {
  const budget = request.budget ?? 'mid';
  const limits = REFLECT_BUDGETS[budget];
  const queryTime = request.queryTime ? parseTimestamp(request.queryTime, 'queryTime') : nowIso();
  const answerSchema = compileResponseSchema(request.responseSchema);
  const trace: ReflectStep[] = [];
  const tools = new Toolbox(deps, { bank, budget, limits, queryTime, trace });

  const draft = await answerer.answer({
    bank,
    query: request.query,
    queryTime,
    limits,
    maxTokens: request.maxTokens,
    responseSchema: request.responseSchema ?? null,
    answerSchema,
    tools,
    trace,
  });

  const checked = await checkCitations(deps.store, bank.id, draft.answer, draft.cited);
  if (checked.invented.length) {
    const step = trace.reduce((max, s) => Math.max(max, s.step), 0);
    trace.push({ step, action: 'dropped_citations', ids: checked.invented, why: 'no memory with these ids exists in this bank' });
  }

  let answer = checked.answer;
  if (answerSchema) {
    const valid = checkAnswer(answerSchema, answer);
    if (!valid.ok) throw new CairnError('unavailable', `the answer does not match responseSchema:\n${valid.problem}`);
    answer = valid.value;
  } else if (typeof answer !== 'string') {
    throw new CairnError('internal', `answerer ${answerer.name} returned a non-text answer without a responseSchema`);
  }

  return {
    answer,
    basedOn: {
      observations: checked.kept.filter((f) => f.kind === 'observation').map((f) => f.id),
      facts: checked.kept.filter((f) => f.kind !== 'observation').map((f) => f.id),
    },
    trace,
    answerer: answerer.name,
    ...(draft.usage ? { usage: draft.usage } : {}),
  };
}
