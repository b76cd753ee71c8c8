// Domain types of Cairn: banks, documents and chunks, facts, entities, links, observations and their evidence.
// Every other module speaks in these types; none of them knows which store holds them.

export type FactKind = 'world' | 'experience' | 'observation';
export const FACT_KINDS: readonly FactKind[] = ['world', 'experience', 'observation'];

/** active: current knowledge; superseded: replaced by a newer fact (kept for asOf queries and audits). */
export type FactStatus = 'active' | 'superseded';

/** A standing instruction ("always answer with code") or preference ("I prefer Android") its speaker stated. */
export type Stance = 'instruction' | 'preference';

export type LinkType = 'temporal' | 'semantic' | 'causal' | 'entity';

/** Per-bank settings. Unknown keys are kept as given so new features can add settings without a migration. */
export interface BankConfig {
  /** What retain should keep (steers LLM extraction). */
  retainMission?: string;
  /** Reflect disposition, each 1..5. */
  disposition?: { skepticism?: number; literalism?: number; empathy?: number };
  /** Free-form settings of other modules (threads, llm overrides, ...). */
  [key: string]: unknown;
}

export interface Bank {
  id: string;
  name: string;
  /** What this bank's memory is for; steers consolidation and reflect. */
  mission: string;
  config: BankConfig;
  /** Id of the embedder whose vectors this bank holds (null until the first vector is written). */
  embedder: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentRecord {
  id: string;
  bankId: string;
  /** Hash over the document's chunk hashes, in order: an unchanged document is skipped on re-retain. */
  contentHash: string;
  metadata: Record<string, string>;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Chunk {
  id: string;
  bankId: string;
  documentId: string;
  /** Position of the chunk in its document. */
  index: number;
  /** Id of the retained item the chunk came from. */
  itemId: string;
  text: string;
  contentHash: string;
  speaker: string | null;
  /** When the item was said or written (ISO 8601). */
  timestamp: string | null;
  /** Free-text context of the item (e.g. "session 3 of a chat"). */
  context: string | null;
  metadata: Record<string, string>;
  tags: string[];
  /** The session (conversation) the item belongs to: its `session`, else its documentId; null: none. */
  session?: string | null;
}

/** Where a fact came from: the exact character span inside its chunk. */
export interface SourceRef {
  documentId: string;
  chunkId: string;
  itemId: string;
  start: number;
  end: number;
  /** The session of the chunk (see Chunk.session). */
  session?: string | null;
}

export interface Fact {
  id: string;
  bankId: string;
  kind: FactKind;
  text: string;
  /** When the fact happened, if known (ISO 8601). */
  occurredStart: string | null;
  occurredEnd: string | null;
  /** When the fact was said or written. */
  mentionedAt: string;
  /** Ids of the entities the fact concerns. */
  entities: string[];
  source: SourceRef | null;
  speaker: string | null;
  metadata: Record<string, string>;
  tags: string[];
  /** Whether the fact states a standing instruction or preference (read at retain); recall adds these to the
   * questions they bear on. */
  stance: Stance | null;
  /**
   * What the fact's keyword representation reads beside its text: the heading it stands under, its passage's names
   * and identifiers, the sentence before it. Never shown as the fact: its text stays its own.
   */
  context: string | null;
  status: FactStatus;
  /** Valid time: from when (and until when) the fact was true, apart from record time. */
  validFrom: string | null;
  validTo: string | null;
  supersededBy: string | null;
  /** Record time at which the fact stopped being believed (it was superseded). */
  supersededAt: string | null;
  /** Null while waiting in the consolidation queue. */
  consolidatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Entity {
  id: string;
  bankId: string;
  name: string;
  aliases: string[];
  type: string | null;
  mentionCount: number;
  firstSeen: string;
  lastSeen: string;
}

export interface FactLink {
  bankId: string;
  from: string;
  to: string;
  type: LinkType;
  weight: number;
}

/** An observation is a fact of kind 'observation' (synthesized, no source span) plus its evidence count. */
export interface Observation extends Fact {
  kind: 'observation';
  /** Number of supporting facts. */
  proofCount: number;
}

export type EvidenceRole = 'supports' | 'contradicts';

export interface Evidence {
  observationId: string;
  factId: string;
  role: EvidenceRole;
  createdAt: string;
}

export type RevisionReason = 'created' | 'supported' | 'refined' | 'contradicted' | 'evidence-removed';

export interface ObservationRevision {
  id: string;
  observationId: string;
  oldText: string | null;
  newText: string;
  factIds: string[];
  reason: RevisionReason;
  at: string;
}

/** Chunks of a retain's new text written so far, and to write in all. */
export interface ChunkProgress {
  done: number;
  total: number;
}

export type OperationStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** Whether an operation of this status has yet to end. */
export const isUnfinished = (status: string): boolean => status === 'queued' || status === 'running';

export interface Operation {
  id: string;
  bankId: string;
  kind: string;
  status: OperationStatus;
  /** Units done and in all (a retain: items); a retain also counts the chunks of its new text (`chunks`), so one long
   * item shows progress as it goes. */
  progress: {
    done: number;
    total: number;
    chunks?: ChunkProgress;
    /** What the operation waits for before it can go on, while it waits (a retain: its bank's write lease). */
    waiting?: string;
  };
  /** What the operation was asked to do, kept so unfinished work can resume after a crash. */
  input: unknown;
  result: unknown;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  /** The process running it (its heartbeat id); absent for operations recorded already finished. */
  owner?: string | null;
}

/** A bank config as stored: keys set to null (a merge patch's way to remove a setting) left out. */
export function withoutNulls(config: BankConfig): BankConfig {
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== null));
}
