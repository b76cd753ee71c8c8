// The documents that retains running in this process are writing, by bank. A document is stored only when a retain's
// first write of it commits: a DELETE of it before then found nothing (404) and the retain stored it right after,
// so the user's delete silently did not happen. Whoever answers that DELETE asks here first (and the store for the
// queued operations of other processes) and tells the client to wait for that operation instead.
import type { RetainRequest } from './types.ts';

export class DocumentsInFlight {
  /** `bank \0 document` -> the operations writing it (a document may be named by several retains at once). */
  private readonly writers = new Map<string, Set<string>>();

  /** Records the documents the request names as written by the operation until the returned release is called. */
  hold(bankId: string, request: RetainRequest, operationId: string): () => void {
    const keys = [...new Set(namedDocuments(request).map((id) => keyOf(bankId, id)))];
    for (const key of keys) {
      const ops = this.writers.get(key) ?? new Set<string>();
      ops.add(operationId);
      this.writers.set(key, ops);
    }
    return () => {
      for (const key of keys) {
        const ops = this.writers.get(key);
        ops?.delete(operationId);
        if (ops?.size === 0) this.writers.delete(key);
      }
    };
  }

  /** The operations running here that write the document. */
  writersOf(bankId: string, documentId: string): string[] {
    return [...(this.writers.get(keyOf(bankId, documentId)) ?? [])];
  }
}

/** The document ids a retain request names (those it derives from content are not known to clients beforehand). */
const namedDocuments = (request: RetainRequest): string[] =>
  request.items.flatMap((item) => (item.documentId === undefined ? [] : [item.documentId]));

const keyOf = (bankId: string, documentId: string): string => `${bankId}\u0000${documentId}`;
