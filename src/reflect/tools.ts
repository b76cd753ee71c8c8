// The reflect tools over the ports: search_observations and recall_facts run recall restricted to observations
// or to raw facts (world, experience); expand shows an observation's evidence facts, or a fact's source chunk or
// whole document. Every call is recorded in the trace, and every memory returned is remembered as seen.
import type { Bank, Fact } from '../core/index.ts';
import type { LlmUsage } from '../llm/index.ts';
import type { Budget, RecallRequest, RecallResponse } from '../recall/index.ts';
import type { AuditReads, RecallReads } from '../store/index.ts';
import type { ReflectTools, ToolOutcome } from './answerer.ts';
import type { Memory, ReflectLimits, ReflectStep, ToolCall } from './types.ts';

/** Recall over one bank (the engine's recall, with its embedder and reranker). */
export type Recaller = (bankId: string, request: RecallRequest) => Promise<RecallResponse>;

export interface ToolboxDeps {
  store: RecallReads & AuditReads;
  recall: Recaller;
}

/** Most characters of a document shown by one expand. */
export const MAX_DOCUMENT_CHARS = 8_000;
/** Most memories one search may return, whatever the model asks for. */
export const MAX_PER_SEARCH = 20;

export const memoryOf = (f: Pick<Fact, 'id' | 'kind' | 'text' | 'occurredStart' | 'occurredEnd' | 'mentionedAt'>): Memory => ({
  id: f.id,
  kind: f.kind,
  text: f.text,
  occurredStart: f.occurredStart,
  occurredEnd: f.occurredEnd,
  mentionedAt: f.mentionedAt,
});

/** What one reflect request gives its tools. */
export interface ToolboxScope {
  bank: Bank;
  budget: Budget;
  limits: ReflectLimits;
  queryTime: string;
  /** Where each call is recorded. */
  trace: ReflectStep[];
}

export class Toolbox implements ReflectTools {
  readonly seen = new Map<string, Memory>();
  private readonly bank: Bank;
  private readonly trace: ReflectStep[];

  constructor(
    private readonly deps: ToolboxDeps,
    private readonly scope: ToolboxScope,
  ) {
    this.bank = scope.bank;
    this.trace = scope.trace;
  }

  async run(call: ToolCall, step: number, note: { reason?: string; usage?: LlmUsage } = {}): Promise<ToolOutcome> {
    const started = performance.now();
    let outcome: ToolOutcome;
    try {
      outcome = call.tool === 'expand' ? await this.expand(call.args.id, call.args.scope ?? 'chunk') : await this.search(call);
    } catch (error) {
      // A failed tool is the model's problem to work around (e.g. a malformed id), not the request's end.
      outcome = { memories: [], error: error instanceof Error ? error.message : String(error) };
    }
    for (const m of outcome.memories) if (!this.seen.has(m.id)) this.seen.set(m.id, m);
    this.trace.push({
      step,
      action: call.tool,
      args: call.args,
      found: outcome.memories.map((m) => m.id),
      ms: Math.round(performance.now() - started),
      ...(note.reason ? { reason: note.reason } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(note.usage ? { usage: note.usage } : {}),
    });
    return outcome;
  }

  private async search(call: Extract<ToolCall, { tool: 'search_observations' | 'recall_facts' }>): Promise<ToolOutcome> {
    const response = await this.deps.recall(this.bank.id, {
      query: call.args.query,
      types: call.tool === 'search_observations' ? ['observation'] : ['world', 'experience'],
      budget: this.scope.budget,
      limit: Math.min(call.args.limit ?? this.scope.limits.perSearch, MAX_PER_SEARCH),
      maxTokens: this.scope.limits.searchTokens,
      queryTime: this.scope.queryTime,
    });
    return { memories: response.results.map(memoryOf) };
  }

  private async expand(id: string, scope: 'chunk' | 'document'): Promise<ToolOutcome> {
    const [fact] = await this.deps.store.getFacts(this.bank.id, [id]);
    if (!fact) return { memories: [], error: `no memory with id '${id}' in this bank` };
    if (fact.kind === 'observation') {
      const evidence = await this.deps.store.evidenceOf(this.bank.id, id);
      const facts = await this.deps.store.getFacts(
        this.bank.id,
        evidence.map((e) => e.factId),
      );
      const role = new Map(evidence.map((e) => [e.factId, e.role]));
      // Supporting evidence first, each group in the order recorded.
      const ordered = [...facts].sort((a, b) => Number(role.get(a.id) === 'contradicts') - Number(role.get(b.id) === 'contradicts'));
      return { memories: [memoryOf(fact), ...ordered.map(memoryOf)] };
    }
    if (!fact.source) return { memories: [memoryOf(fact)], error: 'this fact has no stored source' };
    const [chunk] = await this.deps.store.getChunks(this.bank.id, [fact.source.chunkId]);
    let document: string | null = null;
    if (scope === 'document') {
      const chunks = await this.deps.store.listChunks(this.bank.id, fact.source.documentId);
      const text = [...chunks]
        .sort((a, b) => a.index - b.index)
        .map((c) => c.text)
        .join('\n\n');
      document = text.length > MAX_DOCUMENT_CHARS ? `${text.slice(0, MAX_DOCUMENT_CHARS)}\n[... document truncated ...]` : text;
    }
    return {
      memories: [memoryOf(fact)],
      source: {
        chunk: chunk?.text ?? null,
        document,
        speaker: chunk?.speaker ?? null,
        timestamp: chunk?.timestamp ?? null,
        context: chunk?.context ?? null,
      },
    };
  }
}
