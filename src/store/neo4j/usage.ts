// The usage ledger (src/llm/ledger.ts) on Neo4j (Cypher: statements/usage.ts), so every process of a server
// deployment records into, and reports from, one ledger. Same sums, grouping and order as the embedded ledger
// (store/sqlite/usage.ts), checked by test/conformance/ledger-suite.ts.
import { parseTimestamp } from '../../core/index.ts';
import {
  BUCKET_START,
  emptyTotals,
  type UsageEntry,
  type UsageGroup,
  type UsageLedger,
  type UsagePoint,
  type UsageQuery,
  type UsageReport,
  type UsageTotals,
  type LlmOperation,
} from '../../llm/index.ts';
import type { Neo4jConnection, Row } from './connection.ts';
import * as st from './statements/usage.ts';
import { usageProps } from './thread-rows.ts';

function totals(r: Row): UsageTotals {
  const n = (v: unknown): number => Number(v ?? 0);
  return {
    calls: n(r.calls),
    failures: n(r.failures),
    inputTokens: n(r.inputTokens),
    outputTokens: n(r.outputTokens),
    cachedTokens: n(r.cachedTokens),
    costUsd: n(r.costUsd),
    latencyMs: n(r.latencyMs),
  };
}

function group(r: Row): UsageGroup {
  return { operation: String(r.operation) as LlmOperation, provider: String(r.provider), model: String(r.model), ...totals(r) };
}

export class Neo4jUsageLedger implements UsageLedger {
  constructor(private readonly db: Neo4jConnection) {}

  async record(entry: UsageEntry): Promise<void> {
    await this.db.write(st.recordUsage(usageProps(entry, parseTimestamp(entry.at, 'at'))));
  }

  async query(query: UsageQuery): Promise<UsageReport> {
    const range = {
      bankId: query.bankId,
      from: query.from ? parseTimestamp(query.from, 'from') : null,
      to: query.to ? parseTimestamp(query.to, 'to') : null,
    };
    return this.db.readTx(async (tx) => {
      const groups = (await tx.run(st.usageGroups(range))).map(group);
      const [total] = await tx.run(st.usageTotal(range));
      const report: UsageReport = { ...range, groups, total: total ? totals(total) : emptyTotals() };
      if (!query.bucket) return report;
      const series = (await tx.run(st.usageSeries(range, BUCKET_START[query.bucket]))).map(
        (r): UsagePoint => ({ start: String(r.start), ...group(r) }),
      );
      return { ...report, series };
    });
  }
}
