// The reflect use case as the engine offers it (engine.reflect): the bank is looked up, the caller's choice of
// answerer is asked for it, and reflect.ts does the rest.
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
    return reflect(this.deps, bank, request, answererFor(bank));
  }
}
