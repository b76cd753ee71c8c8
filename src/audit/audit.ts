// The audit use cases (engine.audit): an observation's evidence chain and history, the observations a fact
// supports, why a recall result holds, and the deletion tombstones. Each first checks that the bank exists.
import type { Bank, Fact, ObservationRevision } from '../core/index.ts';
import type { AuditReads, ConsolidationQueue, RecallReads, Tombstone } from '../store/index.ts';
import { evidenceChain, observationsOfFact, requireObservation, type EvidenceChain, type ObservationOfFact } from './chain.ts';
import { why, type Why } from './why.ts';

export class Audit {
  constructor(
    private readonly store: AuditReads & RecallReads & ConsolidationQueue,
    private readonly requireBank: (bankId: string) => Promise<Bank>,
    private readonly getFact: (bankId: string, factId: string) => Promise<Fact>,
  ) {}

  async chain(bankId: string, observationId: string): Promise<EvidenceChain> {
    await this.requireBank(bankId);
    return evidenceChain(this.store, bankId, observationId);
  }

  async history(bankId: string, observationId: string): Promise<ObservationRevision[]> {
    await this.requireBank(bankId);
    await requireObservation(this.store, bankId, observationId);
    return this.store.historyOf(bankId, observationId);
  }

  /** The observations a fact supports or contradicts (404 for a fact the bank does not hold). */
  async observationsOfFact(bankId: string, factId: string): Promise<ObservationOfFact[]> {
    await this.getFact(bankId, factId);
    return observationsOfFact(this.store, bankId, factId);
  }

  async why(bankId: string, id: string): Promise<Why> {
    await this.requireBank(bankId);
    return why(this.store, bankId, id);
  }

  /** What was deleted, when and why, newest first. */
  async tombstones(bankId: string, limit: number): Promise<Tombstone[]> {
    await this.requireBank(bankId);
    return this.store.tombstones(bankId, limit);
  }
}
