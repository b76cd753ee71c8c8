// The reflect use case as the engine offers it (engine.reflect): the bank is looked up, the caller's choice of
// answerer is asked for it, and reflect.ts does the rest; a bank deleted meanwhile is a 404, not an answer.
import type { Bank } from '../core/index.ts';
import type { Answerer } from './answerer.ts';
import { reflect, type ReflectDeps } from './reflect.ts';
import type { ReflectRequest, ReflectResponse } from './types.ts';

/** The answerer for a bank (LLM or offline), chosen by the composition root. */
export type AnswererFor = (bank: Bank) => Answerer;

export class Reflection {
  constructor(
    private readonly deps: ReflectDeps,
    private readonly requireBank: (bankId: string) => Promise<Bank>,
  ) {}

  async answer(bankId: string, request: ReflectRequest, answererFor: AnswererFor): Promise<ReflectResponse> {
    const bank = await this.requireBank(bankId);
    const response = await reflect(this.deps, bank, request, answererFor(bank));
    // A bank deleted while the answer was made: its tools found nothing (a failed tool is the answerer's problem, so
    // their 404s end inside it) and the answer would say memory holds nothing relevant. The bank's 404 says what
    // happened instead.
    await this.requireBank(bankId);
    return response;
  }
}
