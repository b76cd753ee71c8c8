// The Neo4j half of the server store's writes. A retained item is staged in one transaction (all of it or
// none): when it carries vectors, its facts and chunks stay pending and keep their vectors until the caller has
// put them in Qdrant and activates the staging. Every transaction starts by taking the bank's write lock.
import { CairnError, type Fact, notFound, type Operation } from '../../core/index.ts';
import { deletedWhileRetained, type ItemWrite, replacedWithDocument, type VectorRecord } from '../ports.ts';
import { documentExists } from './statements/deletes.ts';
import type { PointSource } from '../qdrant/points.ts';
import type { Neo4jConnection, Row, Tx } from './connection.ts';
import * as items from './statements/items.ts';
import { checkpointOperation, createTombstones, lockBank, operationRunning, setEmbedder, tombstone } from './statements/records.ts';

/** Locks the bank for the transaction; returns its embedder. Fails when the bank does not exist. */
export async function lock(tx: Tx, bankId: string, now: string): Promise<string | null> {
  const rows = await tx.run(lockBank(bankId, now));
  if (rows.length === 0) throw notFound('bank', bankId);
  return (rows[0].embedder as string | null | undefined) ?? null;
}

/** The bank takes the embedder on its first vectors and refuses another later (as the embedded store does). */
export async function claimEmbedder(tx: Tx, bankId: string, current: string | null, embedder: string): Promise<void> {
  if (current === null) await tx.run(setEmbedder(bankId, embedder));
  else if (current !== embedder)
    throw new CairnError(
      'embedder_mismatch',
      `bank '${bankId}' holds vectors of '${current}' but the active embedder is '${embedder}'; ` +
        `run 'cairn reembed ${bankId}' or start Cairn with the bank's embedder`,
    );
}

const stopped = (op: Operation): CairnError =>
  new CairnError('conflict', `operation '${op.id}' is no longer running (failed or gone); its write was not applied`);

/** Records a write's checkpoint of its operation in the write's transaction; refuses the write when it stopped. */
export async function checkpoint(tx: Tx, op: Operation): Promise<void> {
  if ((await tx.run(checkpointOperation(op))).length === 0) throw stopped(op);
}

/** Stages new vectors for facts already stored (not written by this call): fails if one is unknown; returns where
 * their points go in Qdrant. */
export async function stageVectorsOfStoredFacts(tx: Tx, bankId: string, vectors: VectorRecord[], now: string): Promise<PointSource[]> {
  if (vectors.length === 0) return [];
  const found = (
    await tx.run(
      items.pointSources(
        bankId,
        vectors.map((v) => v.id),
      ),
    )
  ).map(toPointSource);
  const missing = vectors.filter((v) => !found.some((f) => f.id === v.id));
  if (missing.length) throw new Error(`vector for unknown fact ${missing[0].id}`);
  await tx.run(items.stageVectors(bankId, vectors, now));
  return found;
}

const ids = (rows: Row[]): string[] => rows.map((r) => String(r.id));

export function toPointSource(r: Row): PointSource {
  return {
    id: String(r.id),
    bankId: String(r.bankId),
    kind: String(r.kind) as Fact['kind'],
    tags: Array.isArray(r.tags) ? r.tags.map(String) : [],
    createdAt: String(r.createdAt),
  };
}

export interface StagedItem {
  bankId: string;
  /** The write waits for activation (it has vectors for Qdrant). */
  pending: boolean;
  /** The bank's embedder after the write (the collection its points live in), null while it has no vectors. */
  bankEmbedder: string | null;
  factIds: string[];
  chunkIds: string[];
  document: { id: string; hash: string };
  /** What the vectors' points need (facts of the write, and existing facts it re-vectors). */
  sources: PointSource[];
  /** Facts this write deleted (chunks removed or rewritten): their points must go. */
  removedFactIds: string[];
  /** The operation's checkpoint, recorded when the staging is activated (a write without vectors records it at once). */
  operation: Operation | null;
}

export async function stageItem(db: Neo4jConnection, w: ItemWrite, now: string): Promise<StagedItem> {
  const pending = w.vectors.length > 0;
  const s: items.Staging = { pending, now };
  const vectorOf = new Map(w.vectors.map((v) => [v.id, v.vector]));
  const own = new Set(w.facts.map((f) => f.id));
  const others: VectorRecord[] = w.vectors.filter((v) => !own.has(v.id));
  return db.writeTx(async (tx) => {
    const current = await lock(tx, w.bankId, now);
    if (w.operation && pending && (await tx.run(operationRunning(w.operation.id))).length === 0) throw stopped(w.operation);
    if (w.operation && !pending) await checkpoint(tx, w.operation);
    if (pending) await claimEmbedder(tx, w.bankId, current, w.embedder);
    if (w.continues && (await tx.run(documentExists(w.bankId, w.document.id))).length === 0) throw deletedWhileRetained(w.document.id);
    await tx.run(items.upsertDocument(w.document, s));
    const removed: string[] = [];
    if (w.removeChunkIds.length) {
      const replaced = ids(await tx.run(items.deleteFactsOfChunks(w.bankId, w.removeChunkIds, false)));
      removed.push(...replaced);
      await tx.run(items.deleteChunks(w.bankId, w.removeChunkIds));
      // Each fact that goes leaves a tombstone: asked for later, it says where it went.
      const reason = replacedWithDocument(w.document.id);
      if (replaced.length) await tx.run(createTombstones(replaced.map((id) => tombstone(w.bankId, 'fact', id, reason, now))));
    }
    if (w.chunks.length) {
      // Rewriting a chunk drops what an earlier, unfinished staging of it left.
      removed.push(
        ...ids(
          await tx.run(
            items.deleteFactsOfChunks(
              w.bankId,
              w.chunks.map((c) => c.id),
              true,
            ),
          ),
        ),
      );
      await tx.run(items.upsertChunks(w.bankId, w.chunks, s));
    }
    if (w.entities.length) {
      await tx.run(items.upsertEntities(w.entities));
      await tx.run(items.upsertEntityKeys(w.bankId, w.entities));
    }
    if (w.facts.length) {
      await tx.run(
        items.upsertFacts(
          w.bankId,
          w.facts.map((fact) => ({ fact, vector: vectorOf.get(fact.id) ?? null })),
          s,
        ),
      );
      for (const st of items.replaceMentions(w.bankId, w.facts)) await tx.run(st);
    }
    if (w.links.length) await tx.run(items.upsertLinks(w.bankId, w.links));
    const sources: PointSource[] = [
      ...w.facts
        .filter((f) => vectorOf.has(f.id))
        .map((f) => ({ id: f.id, bankId: f.bankId, kind: f.kind, tags: f.tags, createdAt: f.createdAt })),
      ...(await stageVectorsOfStoredFacts(tx, w.bankId, others, now)),
    ];
    if (removed.length) for (const st of items.pruneEntities(w.bankId)) await tx.run(st);
    return {
      bankId: w.bankId,
      pending,
      bankEmbedder: pending ? w.embedder : current,
      factIds: w.facts.map((f) => f.id),
      chunkIds: w.chunks.map((c) => c.id),
      document: { id: w.document.id, hash: w.document.contentHash },
      sources,
      removedFactIds: removed,
      operation: pending ? (w.operation ?? null) : null,
    };
  });
}

/** Makes a staged item visible (its vectors are in Qdrant). */
export async function activateItem(db: Neo4jConnection, staged: StagedItem): Promise<void> {
  const vectorIds = staged.sources.map((s) => s.id).filter((id) => !staged.factIds.includes(id));
  await db.writeTx(async (tx) => {
    if (staged.operation) await checkpoint(tx, staged.operation);
    for (const st of items.activate(staged.bankId, staged.factIds, staged.chunkIds, staged.document)) await tx.run(st);
    if (vectorIds.length) await tx.run(items.activateVectors(staged.bankId, vectorIds));
  });
}

/** Checks and stages replacement vectors of existing facts (re-embedding); returns their point sources. */
export async function stageVectors(
  db: Neo4jConnection,
  bankId: string,
  embedder: string,
  vectors: VectorRecord[],
  now: string,
): Promise<PointSource[]> {
  return db.writeTx(async (tx) => {
    const current = await lock(tx, bankId, now);
    await claimEmbedder(tx, bankId, current, embedder);
    return stageVectorsOfStoredFacts(tx, bankId, vectors, now);
  });
}

export async function activateVectors(db: Neo4jConnection, bankId: string, factIds: string[]): Promise<void> {
  if (factIds.length) await db.write(items.activateVectors(bankId, factIds));
}

/** Sets the bank's embedder and drops staged vectors of the old one. Returns the old embedder. */
export async function resetEmbedder(db: Neo4jConnection, bankId: string, embedder: string | null, now: string): Promise<string | null> {
  return db.writeTx(async (tx) => {
    const old = await lock(tx, bankId, now);
    await tx.run(setEmbedder(bankId, embedder));
    await tx.run(items.dropStagedVectors(bankId));
    return old;
  });
}
