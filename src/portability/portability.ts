// Export and import as use cases (what `cairn export` and `cairn import` call): a bank's archive written to a
// stream or a file, and an archive read into a new bank, its thread memory included both ways.
import type { Writable } from 'node:stream';
import type { Embedder } from '../embed/index.ts';
import type { AuditReads, BankStore, ConsolidationQueue, Forgetting, MemoryWrites, RecallReads } from '../store/index.ts';
import type { ThreadStore } from '../threads/index.ts';
import { exportBankToFile, writeExport } from './export.ts';
import { importBank, type ImportReport } from './import.ts';

export interface PortabilityParts {
  store: BankStore & RecallReads & AuditReads & MemoryWrites & ConsolidationQueue & Forgetting;
  /** Re-embeds what an archive brings without vectors of this embedder. */
  embedder: Embedder;
  threads: ThreadStore;
}

export class Portability {
  constructor(private readonly parts: PortabilityParts) {}

  /** Writes the bank's archive to a stream; the number of lines. `embeddings`: include the vectors. */
  write(bankId: string, out: Writable, options: { embeddings?: boolean } = {}): Promise<number> {
    return writeExport(this.parts.store, bankId, out, { threads: this.parts.threads, embeddings: options.embeddings });
  }

  /** Writes the bank's archive to a file; the number of lines. */
  writeFile(bankId: string, file: string, options: { embeddings?: boolean } = {}): Promise<number> {
    return exportBankToFile(this.parts.store, bankId, file, { threads: this.parts.threads, embeddings: options.embeddings });
  }

  /** Reads an archive into a new bank (the archive's id, or `bankId`). */
  import(file: string, options: { bankId?: string; onRecord?: (lineNumber: number) => void } = {}): Promise<ImportReport> {
    const { store, embedder, threads } = this.parts;
    return importBank(store, embedder, file, { bankId: options.bankId, threads, onRecord: options.onRecord });
  }
}
