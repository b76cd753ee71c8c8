// The usage ledger on SQLite: appends one llm_usage row per LLM call and sums them per operation, provider
// and model for a bank and time range (and, when asked, per hour or day too). Table: migrations/sqlite/003_usage.sql.
import type Database from 'better-sqlite3';
import {
  BUCKET_START,
  type LlmOperation,
  emptyTotals,
  type UsageEntry,
  type UsageGroup,
  type UsageLedger,
  type UsagePoint,
  type UsageQuery,
  type UsageReport,
  type UsageTotals,
} from '../../llm/index.ts';
import { parseTimestamp } from '../../core/index.ts';

interface TotalsRow {
  calls: number;
  failures: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cached_tokens: number | null;
  cost_usd: number | null;
  latency_ms: number | null;
}

interface GroupRow extends TotalsRow {
  operation: LlmOperation;
  provider: string;
  model: string;
}

const SUMS = `COUNT(*) AS calls, SUM(1 - ok) AS failures, SUM(input_tokens) AS input_tokens,
  SUM(output_tokens) AS output_tokens, SUM(cached_tokens) AS cached_tokens, SUM(cost_usd) AS cost_usd,
  SUM(latency_ms) AS latency_ms`;

const WHERE = `bank_id = @bankId AND (@from IS NULL OR at >= @from) AND (@to IS NULL OR at < @to)`;

function group(row: GroupRow): UsageGroup {
  return { operation: row.operation, provider: row.provider, model: row.model, ...totals(row) };
}

export class SqliteUsageLedger implements UsageLedger {
  readonly #insert: Database.Statement;
  readonly #groups: Database.Statement;
  readonly #total: Database.Statement;
  readonly #series: Database.Statement;

  constructor(db: Database.Database) {
    this.#insert = db.prepare(
      `INSERT INTO llm_usage (at, bank_id, operation, provider, model, input_tokens, output_tokens, cached_tokens,
         latency_ms, cost_usd, ok, error)
       VALUES (@at, @bankId, @operation, @provider, @model, @inputTokens, @outputTokens, @cachedTokens,
         @latencyMs, @costUsd, @ok, @error)`,
    );
    this.#groups = db.prepare(
      `SELECT operation, provider, model, ${SUMS} FROM llm_usage WHERE ${WHERE}
       GROUP BY operation, provider, model ORDER BY operation, model, provider`,
    );
    this.#total = db.prepare(`SELECT ${SUMS} FROM llm_usage WHERE ${WHERE}`);
    this.#series = db.prepare(
      `SELECT substr(at, 1, @chars) || @rest AS start, operation, provider, model, ${SUMS} FROM llm_usage WHERE ${WHERE}
       GROUP BY start, operation, provider, model ORDER BY start, operation, model, provider`,
    );
  }

  async record(entry: UsageEntry): Promise<void> {
    this.#insert.run({
      at: parseTimestamp(entry.at, 'at'),
      bankId: entry.bankId,
      operation: entry.operation,
      provider: entry.provider,
      model: entry.model,
      inputTokens: entry.inputTokens,
      outputTokens: entry.outputTokens,
      cachedTokens: entry.cachedTokens,
      latencyMs: Math.round(entry.latencyMs),
      costUsd: entry.costUsd,
      ok: entry.ok ? 1 : 0,
      error: entry.error,
    });
  }

  async query(query: UsageQuery): Promise<UsageReport> {
    const params = {
      bankId: query.bankId,
      from: query.from ? parseTimestamp(query.from, 'from') : null,
      to: query.to ? parseTimestamp(query.to, 'to') : null,
    };
    const groups = (this.#groups.all(params) as GroupRow[]).map(group);
    const total = this.#total.get(params) as TotalsRow | undefined;
    const report: UsageReport = {
      bankId: query.bankId,
      from: params.from,
      to: params.to,
      groups,
      total: total ? totals(total) : emptyTotals(),
    };
    if (!query.bucket) return report;
    const series = (this.#series.all({ ...params, ...BUCKET_START[query.bucket] }) as Array<GroupRow & { start: string }>).map(
      (row): UsagePoint => ({ start: row.start, ...group(row) }),
    );
    return { ...report, series };
  }
}

function totals(row: TotalsRow): UsageTotals {
  return {
    calls: row.calls,
    failures: row.failures ?? 0,
    inputTokens: row.input_tokens ?? 0,
    outputTokens: row.output_tokens ?? 0,
    cachedTokens: row.cached_tokens ?? 0,
    costUsd: row.cost_usd ?? 0,
    latencyMs: row.latency_ms ?? 0,
  };
}
