// Prometheus metrics (prom-client): what the API serves, what retain and recall do, consolidation's backlog, LLM
// calls and spend, thread memory runs, and the process. The composition root feeds it from the modules' events;
// nothing here knows a store. Labels carry no bank content: bank ids only, and at most `maxBanks` of them (later
// banks share the label "(other)", which no bank id can be), so a server with many banks cannot grow the series
// without bound; a deleted bank's series go and free its place.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ConsolidationStatus } from '../consolidate/index.ts';
import type { UsageEntry } from '../llm/index.ts';
import type { RecallTimings } from '../recall/index.ts';
import type { RetainRequest, RetainResult } from '../retain/index.ts';
import type { MemoryEvent } from '../threads/index.ts';

export interface MetricsOptions {
  /** Most distinct bank ids used as label values (default 100). */
  maxBanks?: number;
  /** Node process metrics (CPU, memory, event loop lag, GC); default on. */
  processMetrics?: boolean;
}

/** The consolidation status of the banks to report (at most `limit` of them), read at scrape time. */
export type ConsolidationSource = (limit: number) => Promise<ConsolidationStatus[]>;

/** The label of banks past maxBanks: parentheses are not allowed in bank ids, so no bank is called that. */
export const OTHER_BANKS = '(other)';
/** Most banks whose consolidation status one scrape reads (those past maxBanks are summed under OTHER_BANKS). */
const MAX_STATUS_BANKS = 1000;
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Metrics {
  readonly registry = new Registry();
  private readonly maxBanks: number;
  private readonly banks = new Set<string>();
  private consolidationSource: ConsolidationSource | null = null;

  private readonly requests = new Counter({
    name: 'cairn_http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'cairn_http_request_duration_seconds',
    help: 'HTTP request latency by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly recallSeconds = new Histogram({
    name: 'cairn_recall_duration_seconds',
    help: 'Recall latency by stage: total, arms (all five at once), fusion, load, rerank, mmr, budget',
    labelNames: ['stage'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly recallArmSeconds = new Histogram({
    name: 'cairn_recall_arm_duration_seconds',
    help: "Time from a recall's start until each retrieval arm answered",
    labelNames: ['arm'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly retainItems = new Counter({
    name: 'cairn_retain_items_total',
    help: 'Items retained',
    labelNames: ['bank'] as const,
    registers: [this.registry],
  });
  private readonly retainBytes = new Counter({
    name: 'cairn_retain_bytes_total',
    help: 'Bytes of item content retained (UTF-8)',
    labelNames: ['bank'] as const,
    registers: [this.registry],
  });
  private readonly retainFacts = new Counter({
    name: 'cairn_retain_facts_total',
    help: 'Facts written by retains',
    labelNames: ['bank'] as const,
    registers: [this.registry],
  });
  private readonly backlog = this.bankGauge('cairn_consolidation_backlog', 'Facts waiting for consolidation (dead letters not counted)');
  private readonly oldestWaiting = this.bankGauge(
    'cairn_consolidation_oldest_waiting_seconds',
    'Age of the oldest fact waiting for consolidation (0 when none waits)',
  );
  private readonly deadLetters = this.bankGauge('cairn_consolidation_dead_letters', 'Facts on the dead-letter list');
  private readonly consolidated = this.bankGauge('cairn_consolidated_facts', 'Facts consolidated so far');
  private readonly observations = this.bankGauge('cairn_observations', 'Observations held');
  private readonly llmCalls = new Counter({
    name: 'cairn_llm_calls_total',
    help: 'LLM calls by provider, operation and outcome (ok, error)',
    labelNames: ['provider', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly llmTokens = new Counter({
    name: 'cairn_llm_tokens_total',
    help: 'LLM tokens by provider, operation and kind (input, output, cached)',
    labelNames: ['provider', 'operation', 'kind'] as const,
    registers: [this.registry],
  });
  private readonly llmCost = new Counter({
    name: 'cairn_llm_cost_usd_total',
    help: 'Estimated LLM spend in US dollars (src/llm/prices.ts; 0 for local models)',
    labelNames: ['provider', 'operation'] as const,
    registers: [this.registry],
  });
  private readonly llmSeconds = new Histogram({
    name: 'cairn_llm_call_duration_seconds',
    help: 'LLM call latency as the caller saw it (queueing and retries included)',
    labelNames: ['provider', 'operation'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly threadRuns = new Counter({
    name: 'cairn_thread_memory_runs_total',
    help: 'Thread memory runs by kind (observation, reflection) and outcome (end, failed)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(options: MetricsOptions = {}) {
    this.maxBanks = options.maxBanks ?? 100;
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'cairn_' });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text, consolidation gauges read afresh. */
  async text(): Promise<string> {
    await this.refreshConsolidation();
    return this.registry.metrics();
  }

  /** Where the consolidation gauges are read from at scrape time. */
  readConsolidation(source: ConsolidationSource): void {
    this.consolidationSource = source;
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestSeconds.observe({ method, route }, seconds);
  }

  observeRecall(t: RecallTimings): void {
    for (const stage of ['total', 'arms', 'fusion', 'load', 'rerank', 'mmr', 'budget'] as const)
      this.recallSeconds.observe({ stage }, t[stage] / 1000);
    for (const [arm, ms] of Object.entries(t.perArm)) this.recallArmSeconds.observe({ arm }, ms / 1000);
  }

  observeRetain(bankId: string, result: RetainResult, input: RetainRequest): void {
    const bank = this.bank(bankId);
    this.retainItems.inc({ bank }, input.items.length);
    this.retainBytes.inc(
      { bank },
      input.items.reduce((n, item) => n + Buffer.byteLength(item.content), 0),
    );
    this.retainFacts.inc({ bank }, result.facts);
  }

  observeLlm(entry: UsageEntry): void {
    const { provider, operation } = entry;
    this.llmCalls.inc({ provider, operation, outcome: entry.ok ? 'ok' : 'error' });
    this.llmTokens.inc({ provider, operation, kind: 'input' }, entry.inputTokens);
    this.llmTokens.inc({ provider, operation, kind: 'output' }, entry.outputTokens);
    this.llmTokens.inc({ provider, operation, kind: 'cached' }, entry.cachedTokens);
    this.llmCost.inc({ provider, operation }, entry.costUsd);
    this.llmSeconds.observe({ provider, operation }, entry.latencyMs / 1000);
  }

  /** Drops a deleted bank's series and frees its label for another bank. */
  forgetBank(bankId: string): void {
    if (!this.banks.delete(bankId)) return;
    for (const counter of [this.retainItems, this.retainBytes, this.retainFacts]) counter.remove({ bank: bankId });
  }

  observeThreadEvent(event: MemoryEvent): void {
    const [kind, outcome] = event.type.split('.');
    if ((kind === 'observation' || kind === 'reflection') && (outcome === 'end' || outcome === 'failed'))
      this.threadRuns.inc({ kind, outcome });
  }

  /** The label value of a bank: its id while fewer than maxBanks have one, else OTHER_BANKS. */
  private bank(bankId: string): string {
    if (this.banks.has(bankId)) return bankId;
    if (this.banks.size >= this.maxBanks) return OTHER_BANKS;
    this.banks.add(bankId);
    return bankId;
  }

  private bankGauge(name: string, help: string): Gauge<'bank'> {
    return new Gauge({ name, help, labelNames: ['bank'] as const, registers: [this.registry] });
  }

  private async refreshConsolidation(): Promise<void> {
    if (!this.consolidationSource) return;
    const statuses = await this.consolidationSource(MAX_STATUS_BANKS);
    const gauges = [this.backlog, this.oldestWaiting, this.deadLetters, this.consolidated, this.observations];
    for (const gauge of gauges) gauge.reset(); // deleted banks leave no series behind
    const oldest = new Map<string, number>();
    for (const s of statuses) {
      // Banks without a label of their own add up under OTHER_BANKS (the oldest wait is the oldest among them).
      const bank = { bank: this.bank(s.bankId) };
      this.backlog.inc(bank, s.backlog);
      oldest.set(bank.bank, Math.max(oldest.get(bank.bank) ?? 0, s.oldestWaitingAgeSeconds ?? 0));
      this.deadLetters.inc(bank, s.failed);
      this.consolidated.inc(bank, s.consolidated);
      this.observations.inc(bank, s.observations);
    }
    for (const [bank, seconds] of oldest) this.oldestWaiting.set({ bank }, seconds);
  }
}
