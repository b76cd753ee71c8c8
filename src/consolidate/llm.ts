// The LLM consolidator: one structured call per batch. The model sees the bank's mission, the new facts and the
// related observations with their evidence (llm-prompt.ts), and decides: support, refine or contradict an
// observation, create one, or supersede a fact. Its reply is checked against what it was shown (llm-decisions.ts);
// a reply with a problem gets one corrective retry that shows the model the problem, and if it is still wrong
// the call throws (LlmOutputError): the worker records a failed attempt and retries later, and nothing is written.
// Banks whose resolver gives no provider are consolidated by the fallback (the offline consolidator).
import { CairnError, type Bank, type Observation } from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';
import { type UsageLedger, type LlmProvider, generateObject, type GenerateObjectOptions } from '../llm/index.ts';
import type { ConsolidationDecision, ConsolidationInput, Consolidator, RemainingEvidence } from './consolidator.ts';
import { checkedReplySchema, interpretReply } from './llm-decisions.ts';
import {
  consolidationMessages,
  DEFAULT_PROMPT_LIMITS,
  resynthesisMessages,
  ResynthesisReplySchema,
  viewOf,
  type PromptLimits,
} from './llm-prompt.ts';
import { OfflineConsolidator } from './offline.ts';

/** The provider a bank's consolidation uses, or null for the fallback (e.g. resolveLlm('consolidation', bank.config)). */
export type ConsolidationLlmFor = (bank: Bank) => LlmProvider | null;

export interface LlmConsolidatorOptions {
  /** Consolidates banks the resolver gives no provider (without one, such banks fail visibly). */
  fallback?: Consolidator;
  /** Records every call (with the bank id) to this ledger. */
  ledger?: UsageLedger;
  /** Sampling temperature (default 0: the same facts should consolidate the same way). */
  temperature?: number;
  /** Cap on the reply's tokens (default: the provider's). */
  maxTokens?: number;
  /** How much of the loaded context goes into one prompt. */
  limits?: Partial<PromptLimits>;
  /**
   * Name recorded on the observations it creates. Default: llm:<provider>/<model> for one provider; with a
   * resolver 'llm', or 'llm|<fallback>' (e.g. 'llm|offline') since either may have decided.
   */
  name?: string;
}

export class LlmConsolidator implements Consolidator {
  readonly name: string;
  readonly limits: PromptLimits;
  private readonly llmFor: ConsolidationLlmFor;

  constructor(
    llm: LlmProvider | ConsolidationLlmFor,
    readonly options: LlmConsolidatorOptions = {},
  ) {
    this.llmFor = typeof llm === 'function' ? llm : () => llm;
    const resolved =
      typeof llm === 'function' ? (options.fallback ? `llm|${options.fallback.name}` : 'llm') : `llm:${llm.provider}/${llm.model}`;
    this.name = options.name ?? resolved;
    this.limits = { ...DEFAULT_PROMPT_LIMITS, ...options.limits };
  }

  async consolidate(input: ConsolidationInput): Promise<ConsolidationDecision[]> {
    const llm = this.llmFor(input.bank);
    if (!llm) return this.fallback(input.bank).consolidate(input);
    if (input.facts.length === 0) return [];
    const view = viewOf(input, this.limits);
    const { value } = await generateObject(
      llm,
      { ...this.request(input.bank.id), schemaName: 'consolidation', messages: consolidationMessages(view) },
      checkedReplySchema(view),
      this.callOptions(),
    );
    // The schema has already refused any reply with a problem; this maps the checked reply to stored ids.
    const { decisions, problems } = interpretReply(value, view);
    if (problems.length) throw new CairnError('internal', `consolidation reply passed validation with problems: ${problems[0].message}`);
    return decisions;
  }

  async resynthesize(bank: Bank, observation: Observation, evidence: RemainingEvidence[]): Promise<string> {
    const llm = this.llmFor(bank);
    if (!llm) return this.fallback(bank).resynthesize(bank, observation, evidence);
    if (evidence.length === 0) return '';
    const { value } = await generateObject(
      llm,
      {
        ...this.request(bank.id),
        schemaName: 'observation',
        messages: resynthesisMessages(bank.mission, observation.metadata.facet ?? null, evidence),
      },
      ResynthesisReplySchema,
      this.callOptions(),
    );
    return value.text;
  }

  private fallback(bank: Bank): Consolidator {
    if (this.options.fallback) return this.options.fallback;
    throw new CairnError('unavailable', `no consolidation LLM is configured for bank '${bank.id}'`);
  }

  private request(bankId: string): { operation: 'consolidation'; bankId: string; temperature: number; maxTokens?: number } {
    return {
      operation: 'consolidation',
      bankId,
      temperature: this.options.temperature ?? 0,
      ...(this.options.maxTokens ? { maxTokens: this.options.maxTokens } : {}),
    };
  }

  private callOptions(): GenerateObjectOptions {
    return this.options.ledger ? { ledger: this.options.ledger } : {};
  }
}

/**
 * The consolidator of a deployment: the LLM one for banks whose resolver gives a provider, the offline one over
 * the embedder for the others. The composition root passes resolveLlm('consolidation', bank.config, ...).
 */
export function consolidatorFor(
  embedder: Embedder,
  llmFor: ConsolidationLlmFor,
  options: Omit<LlmConsolidatorOptions, 'fallback'> = {},
): Consolidator {
  return new LlmConsolidator(llmFor, { ...options, fallback: new OfflineConsolidator(embedder) });
}
