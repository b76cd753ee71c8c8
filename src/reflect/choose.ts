// Which answerer reflect uses for a bank: the LLM answerer when the bank's reflect operation has a provider
// (resolveLlm('reflect', bank.config) at the composition root), else the offline answerer.
import type { LlmProvider } from '../llm/index.ts';
import type { Answerer } from './answerer.ts';
import { LlmAnswerer, type LlmAnswererOptions } from './llm-answerer.ts';
import { OfflineAnswerer } from './offline-answerer.ts';

const offline = new OfflineAnswerer();

export function chooseAnswerer(llm: LlmProvider | null, options: LlmAnswererOptions = {}): Answerer {
  return llm ? new LlmAnswerer(llm, options) : offline;
}
