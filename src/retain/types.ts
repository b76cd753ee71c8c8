// Retain's request and result shapes (validated at the HTTP edge; the pipeline trusts them).
import type { ChunkProgress } from '../core/index.ts';

export type ItemRole = 'user' | 'assistant' | 'agent' | 'system';

export interface RetainItem {
  content: string;
  /** When it was said or written (ISO 8601); defaults to now. */
  timestamp?: string;
  context?: string;
  speaker?: string;
  /** 'assistant' or 'agent' marks the agent's own turn: its facts are `experience`. */
  role?: ItemRole;
  /** Items sharing a documentId form one document, in order. */
  documentId?: string;
  /**
   * The session (conversation) the item belongs to; recall orders a bank's sessions by time and answers "our first
   * session", "last time". Default: the documentId (an item without one belongs to no session); null: none.
   */
  session?: string | null;
  metadata?: Record<string, string>;
  tags?: string[];
}

export interface RetainRequest {
  items: RetainItem[];
  /** replace (default): a document's items replace its earlier version; append: they are added to it. */
  documentMode?: 'replace' | 'append';
}

export interface RetainResult {
  documents: number;
  documentsUnchanged: number;
  chunksProcessed: number;
  chunksRemoved: number;
  facts: number;
  factIds: string[];
  entities: number;
}

export type Progress = (done: number, total: number, chunks?: ChunkProgress) => void;
