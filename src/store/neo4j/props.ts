// Domain objects -> Neo4j node properties. Maps (metadata, config, operation input/result) are stored as JSON
// text because Neo4j properties cannot hold maps. A missing property reads as null: maps merged with `SET n += $map`
// keep their nulls (which remove the property), maps for CREATE are compacted.
// Facts carry their entity ids as a list (the MENTIONS relationships carry the same for traversal) and the epoch
// milliseconds of their time span, which the temporal arm's range indexes cover.
import type { Bank, Chunk, DocumentRecord, Entity, Fact, ObservationRevision, Operation } from '../../core/index.ts';
import { nameKey } from '../../text/index.ts';
import type { Tombstone } from '../ports.ts';
import type { Params } from './statement.ts';

/** Drops null and undefined values: Neo4j has no null properties. */
export function compact(props: Params): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(props)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

const json = (value: unknown): string => JSON.stringify(value ?? null);
const ms = (iso: string | null): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

export function bankProps(b: Bank): Params {
  return compact({
    id: b.id,
    name: b.name,
    mission: b.mission,
    config: json(b.config),
    embedder: b.embedder,
    createdAt: b.createdAt,
    updatedAt: b.updatedAt,
  });
}

export function documentProps(d: DocumentRecord): Params {
  return { id: d.id, bankId: d.bankId, metadata: json(d.metadata), tags: d.tags, createdAt: d.createdAt, updatedAt: d.updatedAt };
}

/** The text the chunk keyword index sees: speaker-prefixed, as in the embedded store. */
export const chunkSearchText = (c: Chunk): string => (c.speaker ? `${c.speaker}: ${c.text}` : c.text);

export function chunkProps(c: Chunk): Params {
  return {
    id: c.id,
    bankId: c.bankId,
    documentId: c.documentId,
    index: c.index,
    itemId: c.itemId,
    text: c.text,
    searchText: chunkSearchText(c),
    contentHash: c.contentHash,
    speaker: c.speaker,
    timestamp: c.timestamp,
    context: c.context,
    metadata: json(c.metadata),
    tags: c.tags,
    session: c.session ?? null,
  };
}

/** The fact's content: what a (re-)write of the fact sets every time. */
export function factContent(f: Fact): Params {
  return {
    id: f.id,
    bankId: f.bankId,
    kind: f.kind,
    text: f.text,
    occurredStart: f.occurredStart,
    occurredEnd: f.occurredEnd,
    mentionedAt: f.mentionedAt,
    documentId: f.source?.documentId ?? null,
    chunkId: f.source?.chunkId ?? null,
    itemId: f.source?.itemId ?? null,
    spanStart: f.source?.start ?? null,
    spanEnd: f.source?.end ?? null,
    session: f.source?.session ?? null,
    speaker: f.speaker,
    metadata: json(f.metadata),
    tags: f.tags,
    stance: f.stance ?? null,
    context: f.context ?? null,
    entityIds: [...f.entities],
    validFrom: f.validFrom,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    timeStartMs: ms(f.occurredStart ?? f.mentionedAt),
    timeEndMs: ms(f.occurredEnd ?? f.occurredStart ?? f.mentionedAt),
  };
}

/**
 * The fact's lifecycle: set only when the node is created, so re-applying a write never resets what
 * consolidation did since (supersession, the queue state).
 */
export function factLifecycle(f: Fact): Params {
  return {
    status: f.status,
    validTo: f.validTo,
    supersededBy: f.supersededBy,
    supersededAt: f.supersededAt,
    consolidatedAt: f.consolidatedAt,
    queued: f.kind !== 'observation' && f.consolidatedAt === null,
    attempts: 0,
    dead: false,
  };
}

export function entityProps(e: Entity): Params {
  return {
    id: e.id,
    bankId: e.bankId,
    name: e.name,
    aliases: e.aliases,
    type: e.type,
    mentionCount: e.mentionCount,
    firstSeen: e.firstSeen,
    lastSeen: e.lastSeen,
  };
}

/** The normalized keys an entity is found under (its name and aliases), as the embedded store keys them. */
export function entityKeys(e: Entity): string[] {
  return [...new Set([e.name, ...e.aliases].map(nameKey).filter((k) => k.length > 0))];
}

export function operationProps(op: Operation): Params {
  return compact({
    id: op.id,
    bankId: op.bankId,
    kind: op.kind,
    status: op.status,
    progressDone: op.progress.done,
    progressTotal: op.progress.total,
    progressChunksDone: op.progress.chunks?.done,
    progressChunksTotal: op.progress.chunks?.total,
    progressWaiting: op.progress.waiting,
    input: json(op.input),
    result: json(op.result),
    error: op.error,
    createdAt: op.createdAt,
    updatedAt: op.updatedAt,
    owner: op.owner ?? null,
  });
}

export function revisionProps(bankId: string, r: ObservationRevision): Params {
  return compact({
    id: r.id,
    bankId,
    observationId: r.observationId,
    oldText: r.oldText,
    newText: r.newText,
    factIds: r.factIds,
    reason: r.reason,
    at: r.at,
  });
}

export function tombstoneProps(t: Tombstone): Params {
  return { id: t.id, bankId: t.bankId, kind: t.kind, targetId: t.targetId, reason: t.reason, at: t.at };
}
