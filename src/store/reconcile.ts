// `cairn reconcile`: finds and repairs drift between Neo4j and Qdrant in server mode.
//   - stagings a crash left (a document whose write never activated): completed from the vectors kept on its facts
//     (re-embedding any that lack one when the bank's embedder is at hand), else rolled back so a re-retain redoes
//     them; other staged facts (observations, re-embeds) are completed the same way;
//   - Qdrant points without a fact (deleted, rolled back, of a bank's former embedder, of a blanked observation):
//     deleted;
//   - visible facts without a point: re-embedded with the bank's embedder when it is given, else flagged
//     (`needsEmbedding`) for `cairn reembed`;
//   - nodes of a bank whose deletion died mid-sweep: swept;
//   - full-text indexes of a bank that no longer exists (its deletion died before dropping them): dropped.
// A dry run reports the same counts and changes nothing. Stagings younger than the cutoff are left alone: they may
// belong to a write still in flight.
import type { Embedder } from '../embed/index.ts';
import * as deletes from './neo4j/deletes.ts';
import * as pending from './neo4j/statements/pending.ts';
import { activate, activateVectors } from './neo4j/statements/items.ts';
import { propsOf, toFact } from './neo4j/rows.ts';
import type { PointSource } from './qdrant/points.ts';
import { reconcileKeywordIndexes } from './reconcile-indexes.ts';
import type { ServerStore } from './server/store.ts';

export interface ReconcileOptions {
  /** Stagings older than this are completed or rolled back (default 10 minutes). */
  pendingOlderThanMs?: number;
  /** The active embedder: facts whose vector is lost are re-embedded with it when it is the bank's embedder. */
  embedder?: Embedder;
  dryRun?: boolean;
  now?: Date;
  /** Records per page (default 500). */
  batch?: number;
}

export interface ReconcileReport {
  dryRun: boolean;
  /** Document stagings completed and rolled back. */
  stagingsCompleted: number;
  stagingsRolledBack: number;
  /** Other staged facts completed (their vector put in Qdrant, or re-embedded). */
  stagedFactsCompleted: number;
  /** Points without a (vector-holding) fact, deleted. */
  orphanPoints: number;
  /** Visible facts without a point: re-embedded, or flagged for `cairn reembed`. */
  missingPoints: number;
  reembedded: number;
  flagged: number;
  /** Banks whose interrupted deletion was finished. */
  sweptBanks: string[];
  /** Full-text indexes (by name) of banks that no longer exist: dropped (a dry run: found). */
  orphanKeywordIndexes: string[];
}

type StoredFact = ReturnType<typeof toFact> & { pendingVector: number[] | null; pending: boolean };

function storedFact(row: Record<string, unknown>): StoredFact {
  const p = propsOf(row, 'fact');
  const v = p.pendingVector;
  return { ...toFact(p), pendingVector: Array.isArray(v) ? v.map(Number) : null, pending: p.pending === true };
}

const sourceOf = (f: { id: string; bankId: string; kind: PointSource['kind']; tags: string[]; createdAt: string }): PointSource => ({
  id: f.id,
  bankId: f.bankId,
  kind: f.kind,
  tags: f.tags,
  createdAt: f.createdAt,
});

export async function reconcile(store: ServerStore, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const dryRun = options.dryRun ?? false;
  const batch = options.batch ?? 500;
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - (options.pendingOlderThanMs ?? 10 * 60_000)).toISOString();
  const { db, qdrant, records } = store;
  const report: ReconcileReport = {
    dryRun,
    stagingsCompleted: 0,
    stagingsRolledBack: 0,
    stagedFactsCompleted: 0,
    orphanPoints: 0,
    missingPoints: 0,
    reembedded: 0,
    flagged: 0,
    sweptBanks: [],
    orphanKeywordIndexes: [],
  };
  const embedderFor = (bankEmbedder: string | null): Embedder | null =>
    options.embedder && bankEmbedder && options.embedder.id === bankEmbedder ? options.embedder : null;

  /** Vectors for the facts: the kept ones, the rest re-embedded; null when some cannot be had. */
  async function vectorsFor(facts: StoredFact[], bankEmbedder: string | null): Promise<Map<string, Float32Array> | null> {
    const out = new Map<string, Float32Array>();
    const lacking = facts.filter((f) => !f.pendingVector);
    for (const f of facts) if (f.pendingVector) out.set(f.id, Float32Array.from(f.pendingVector));
    if (lacking.length === 0) return out;
    const embedder = embedderFor(bankEmbedder);
    if (!embedder) return null;
    const embedded = await embedder.embed(lacking.map((f) => f.text));
    lacking.forEach((f, i) => out.set(f.id, embedded[i]));
    return out;
  }

  // 1. Keyword indexes of deleted banks. First, so that a dry run reports what a real run drops: the sweep below
  // drops those of the banks it finishes.
  report.orphanKeywordIndexes = await reconcileKeywordIndexes(store, dryRun);

  // 2. Banks whose deletion was interrupted.
  for (const bankId of await deletes.orphanBanks(db)) {
    report.sweptBanks.push(bankId);
    if (dryRun) continue;
    await deletes.sweepBank(db, bankId, batch);
    await qdrant.deleteBank(bankId);
  }

  // 3. Document stagings older than the cutoff: complete, or roll back.
  const seenDocuments = new Set<string>();
  for (;;) {
    const page = (await db.read(pending.stalePendingDocuments(cutoff, batch))).filter(
      (r) => !seenDocuments.has(`${r.bankId}\u0000${r.id}`),
    );
    if (page.length === 0) break;
    for (const row of page) {
      const bankId = String(row.bankId);
      const documentId = String(row.id);
      seenDocuments.add(`${bankId}\u0000${documentId}`);
      const bank = await records.getBank(bankId);
      if (!bank) continue;
      const facts = (await db.read(pending.pendingFactsOfDocument(bankId, documentId))).map(storedFact);
      const chunkIds = (await db.read(pending.pendingChunksOfDocument(bankId, documentId))).map((r) => String(r.id));
      const vectors = facts.length === 0 ? new Map<string, Float32Array>() : bank.embedder ? await vectorsFor(facts, bank.embedder) : null;
      if (vectors) {
        report.stagingsCompleted++;
        if (dryRun) continue;
        if (bank.embedder && vectors.size)
          await qdrant.upsert(
            bank.embedder,
            facts.map((f) => ({ source: sourceOf(f), vector: vectors.get(f.id)! })),
          );
        const hash = row.hash === null || row.hash === undefined ? null : String(row.hash);
        await db.writeTx(async (tx) => {
          for (const st of activate(
            bankId,
            facts.map((f) => f.id),
            chunkIds,
            hash ? { id: documentId, hash } : null,
          ))
            await tx.run(st);
        });
      } else {
        report.stagingsRolledBack++;
        if (dryRun) continue;
        const removed = await db.writeTx(async (tx) => {
          const [drop, ...rest] = pending.rollbackDocument(bankId, documentId);
          const ids = (await tx.run(drop)).map((r) => String(r.id));
          for (const st of rest) await tx.run(st);
          return ids;
        });
        if (bank.embedder) await qdrant.deleteFacts(bank.embedder, removed);
      }
    }
  }

  // 4. Other staged facts: observations, re-embeds, vectors of existing facts.
  const seenFacts = new Set<string>();
  for (;;) {
    const page = (await db.read(pending.stalePendingFacts(cutoff, batch))).map(storedFact).filter((f) => !seenFacts.has(f.id));
    if (page.length === 0) break;
    const byBank = new Map<string, StoredFact[]>();
    for (const f of page) {
      seenFacts.add(f.id);
      byBank.set(f.bankId, [...(byBank.get(f.bankId) ?? []), f]);
    }
    for (const [bankId, facts] of byBank) {
      const bank = await records.getBank(bankId);
      if (!bank) continue;
      report.stagedFactsCompleted += facts.length;
      if (dryRun) continue;
      const vectors = bank.embedder ? await vectorsFor(facts, bank.embedder) : null;
      const placeable = vectors ? facts : facts.filter((f) => f.pendingVector);
      if (bank.embedder && placeable.length) {
        const kept = vectors ?? new Map(placeable.map((f) => [f.id, Float32Array.from(f.pendingVector!)]));
        await qdrant.upsert(
          bank.embedder,
          placeable.map((f) => ({ source: sourceOf(f), vector: kept.get(f.id)! })),
        );
      }
      // Facts whose vector could not be had become visible anyway; step 6 flags them.
      await db.write(
        activateVectors(
          bankId,
          facts.map((f) => f.id),
        ),
      );
    }
  }

  // 5. Points without a fact that should have one.
  for (const collection of await qdrant.collections()) {
    for await (const points of qdrant.scroll(collection, batch)) {
      const owners = new Map((await db.read(pending.pointOwners(points.map((p) => p.factId)))).map((r) => [String(r.id), r] as const));
      const orphans = points.filter((p) => {
        const o = owners.get(p.factId);
        if (!p.factId || !o || o.bankId === null || o.bankId === undefined) return true;
        if (o.bankId !== p.bankId) return true;
        if (o.noVector === true) return true;
        const embedder = o.embedder === null || o.embedder === undefined ? null : String(o.embedder);
        return embedder === null || qdrant.collectionOf(embedder) !== collection;
      });
      report.orphanPoints += orphans.length;
      if (!dryRun && orphans.length)
        await qdrant.deletePoints(
          collection,
          orphans.map((p) => p.pointId),
        );
    }
  }

  // 6. Visible facts without a point.
  for (const bank of await records.listBanks()) {
    if (!bank.embedder) continue;
    let afterSeq = -1;
    for (;;) {
      const rows = await db.read(pending.factsExpectingPoints(bank.id, afterSeq, batch));
      if (rows.length === 0) break;
      const facts = rows.map(storedFact);
      afterSeq = Math.max(...rows.map((r) => Number(propsOf(r, 'fact').seq ?? 0)));
      const present = await qdrant.existing(
        bank.embedder,
        facts.map((f) => f.id),
      );
      const missing = facts.filter((f) => !present.has(f.id));
      report.missingPoints += missing.length;
      if (missing.length === 0) continue;
      const embedder = embedderFor(bank.embedder);
      if (embedder) {
        report.reembedded += missing.length;
        if (dryRun) continue;
        const vectors = await embedder.embed(missing.map((f) => f.text));
        await qdrant.upsert(
          bank.embedder,
          missing.map((f, i) => ({ source: sourceOf(f), vector: vectors[i] })),
        );
        await db.write(
          pending.clearNeedsEmbedding(
            bank.id,
            missing.map((f) => f.id),
          ),
        );
      } else {
        report.flagged += missing.length;
        if (!dryRun)
          await db.write(
            pending.markNeedsEmbedding(
              bank.id,
              missing.map((f) => f.id),
            ),
          );
      }
    }
  }
  return report;
}
