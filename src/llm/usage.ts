// The usage report as a use case (what GET /v1/banks/{bank}/usage calls): a bank's LLM calls from the ledger,
// totalled per operation and model over a time range, and per hour or day of it when asked.
import type { Bank } from '../core/index.ts';
import type { UsageBucket, UsageLedger, UsageReport } from './ledger.ts';

export class Usage {
  constructor(
    private readonly ledger: UsageLedger,
    private readonly requireBank: (bankId: string) => Promise<Bank>,
  ) {}

  async report(bankId: string, range: { from?: string; to?: string; bucket?: UsageBucket } = {}): Promise<UsageReport> {
    await this.requireBank(bankId);
    return this.ledger.query({ bankId, from: range.from, to: range.to, bucket: range.bucket });
  }
}
