// Where facts came from, down to the exact words: the chunk, the character span inside it, the sentence that
// span holds (chunk.text.slice(start, end)), who said it and when, and the document it belongs to.
import type { DocumentRecord, Fact } from '../core/index.ts';
import type { RecallReads } from '../store/index.ts';

export interface SourceSpan {
  documentId: string;
  chunkId: string;
  itemId: string;
  start: number;
  end: number;
  /** The exact source text of the fact. */
  sentence: string;
  speaker: string | null;
  timestamp: string | null;
  context: string | null;
  document: Pick<DocumentRecord, 'id' | 'metadata' | 'tags' | 'createdAt' | 'updatedAt'> | null;
}

/** Source spans of the facts that have one (observations and facts of deleted chunks have none). */
export async function sourcesOf(store: RecallReads, bankId: string, facts: Fact[]): Promise<Map<string, SourceSpan>> {
  const withSource = facts.filter((f) => f.source);
  const chunks = new Map((await store.getChunks(bankId, [...new Set(withSource.map((f) => f.source!.chunkId))])).map((c) => [c.id, c]));
  const documents = new Map<string, SourceSpan['document']>();
  for (const documentId of new Set(withSource.map((f) => f.source!.documentId))) {
    const d = await store.getDocument(bankId, documentId);
    documents.set(documentId, d && { id: d.id, metadata: d.metadata, tags: d.tags, createdAt: d.createdAt, updatedAt: d.updatedAt });
  }
  const out = new Map<string, SourceSpan>();
  for (const f of withSource) {
    const s = f.source!;
    const chunk = chunks.get(s.chunkId);
    if (!chunk) continue;
    out.set(f.id, {
      ...s,
      sentence: chunk.text.slice(s.start, s.end),
      speaker: chunk.speaker,
      timestamp: chunk.timestamp,
      context: chunk.context,
      document: documents.get(s.documentId) ?? null,
    });
  }
  return out;
}
