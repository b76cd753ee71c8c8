// Neo4j node properties (read back as plain maps through `n {.*}` projections) -> domain objects.
// A missing property is null; JSON text columns are parsed back into maps.
import type {
  Bank,
  Chunk,
  DocumentRecord,
  Entity,
  Evidence,
  Fact,
  FactKind,
  FactLink,
  FactStatus,
  LinkType,
  ObservationRevision,
  Operation,
  OperationStatus,
  Stance,
} from '../../core/index.ts';
import { isUnfinished } from '../../core/index.ts';
import type { DeadLetter, Heartbeat, Tombstone } from '../ports.ts';

export type Props = Record<string, unknown>;

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
function parse<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string' || v === '') return fallback;
  return JSON.parse(v) as T;
}
/** The map under `key` of a result row. */
export const propsOf = (row: Props, key: string): Props => (row[key] ?? {}) as Props;

export function toBank(p: Props): Bank {
  return {
    id: String(p.id),
    name: String(p.name),
    mission: String(p.mission ?? ''),
    config: parse(p.config, {}),
    embedder: str(p.embedder),
    createdAt: String(p.createdAt),
    updatedAt: String(p.updatedAt),
  };
}

export function toDocument(p: Props): DocumentRecord {
  return {
    id: String(p.id),
    bankId: String(p.bankId),
    contentHash: String(p.contentHash ?? ''),
    metadata: parse(p.metadata, {}),
    tags: list(p.tags),
    createdAt: String(p.createdAt),
    updatedAt: String(p.updatedAt),
  };
}

export function toChunk(p: Props): Chunk {
  return {
    id: String(p.id),
    bankId: String(p.bankId),
    documentId: String(p.documentId),
    index: num(p.index),
    itemId: String(p.itemId),
    text: String(p.text),
    contentHash: String(p.contentHash),
    speaker: str(p.speaker),
    timestamp: str(p.timestamp),
    context: str(p.context),
    metadata: parse(p.metadata, {}),
    tags: list(p.tags),
    session: str(p.session),
  };
}

export function toFact(p: Props): Fact {
  return {
    id: String(p.id),
    bankId: String(p.bankId),
    kind: String(p.kind) as FactKind,
    text: String(p.text),
    occurredStart: str(p.occurredStart),
    occurredEnd: str(p.occurredEnd),
    mentionedAt: String(p.mentionedAt),
    entities: list(p.entityIds),
    source:
      p.chunkId === null || p.chunkId === undefined
        ? null
        : {
            documentId: String(p.documentId),
            chunkId: String(p.chunkId),
            itemId: String(p.itemId),
            start: num(p.spanStart),
            end: num(p.spanEnd),
            session: str(p.session),
          },
    speaker: str(p.speaker),
    metadata: parse(p.metadata, {}),
    tags: list(p.tags),
    stance: str(p.stance) as Stance | null,
    context: str(p.context),
    status: String(p.status ?? 'active') as FactStatus,
    validFrom: str(p.validFrom),
    validTo: str(p.validTo),
    supersededBy: str(p.supersededBy),
    supersededAt: str(p.supersededAt),
    consolidatedAt: str(p.consolidatedAt),
    createdAt: String(p.createdAt),
    updatedAt: String(p.updatedAt),
  };
}

export function toEntity(p: Props): Entity {
  return {
    id: String(p.id),
    bankId: String(p.bankId),
    name: String(p.name),
    aliases: list(p.aliases),
    type: str(p.type),
    mentionCount: num(p.mentionCount),
    firstSeen: String(p.firstSeen),
    lastSeen: String(p.lastSeen),
  };
}

/** A link row (`source`, `target`, `type`, `weight`). */
export function toLink(bankId: string, r: Props): FactLink {
  return { bankId, from: String(r.source), to: String(r.target), type: String(r.type) as LinkType, weight: num(r.weight) };
}

export function toEvidence(r: Props): Evidence {
  return {
    observationId: String(r.observationId),
    factId: String(r.factId),
    role: String(r.role) as Evidence['role'],
    createdAt: String(r.createdAt),
  };
}

export function toRevision(p: Props): ObservationRevision {
  return {
    id: String(p.id),
    observationId: String(p.observationId),
    oldText: str(p.oldText),
    newText: String(p.newText),
    factIds: list(p.factIds),
    reason: String(p.reason) as ObservationRevision['reason'],
    at: String(p.at),
  };
}

export function toOperation(p: Props): Operation {
  return {
    id: String(p.id),
    bankId: String(p.bankId),
    kind: String(p.kind),
    status: String(p.status) as OperationStatus,
    progress: {
      done: num(p.progressDone),
      total: num(p.progressTotal),
      ...(p.progressChunksTotal == null ? {} : { chunks: { done: num(p.progressChunksDone), total: num(p.progressChunksTotal) } }),
      // Only while unfinished: an operation that ended while it waited (failed by its bank's deletion) waits no more.
      ...(p.progressWaiting == null || !isUnfinished(String(p.status)) ? {} : { waiting: String(p.progressWaiting) }),
    },
    input: parse(p.input, null),
    result: parse(p.result, null),
    error: str(p.error),
    createdAt: String(p.createdAt),
    updatedAt: String(p.updatedAt),
    owner: str(p.owner),
  };
}

export function toHeartbeat(p: Props): Heartbeat {
  return {
    id: String(p.id),
    role: String(p.role ?? ''),
    host: String(p.host ?? ''),
    pid: num(p.pid),
    startedAt: String(p.startedAt),
    beatAt: String(p.beatAt),
    aliveUntil: String(p.aliveUntil),
  };
}

export function toTombstone(p: Props): Tombstone {
  return {
    id: String(p.id),
    bankId: String(p.bankId),
    kind: String(p.kind) as Tombstone['kind'],
    targetId: String(p.targetId),
    reason: String(p.reason),
    at: String(p.at),
  };
}

export function toDeadLetter(p: Props): DeadLetter {
  return {
    factId: String(p.id),
    bankId: String(p.bankId),
    error: String(p.lastError ?? ''),
    attempts: num(p.attempts),
    failedAt: String(p.nextAttemptAt ?? p.updatedAt),
  };
}
