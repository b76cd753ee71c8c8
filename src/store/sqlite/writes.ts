// The embedded store's atomic writes: one retained item (document, chunks, facts, entities, links, vectors)
// and cascading deletes of facts, documents and banks, each in one SQLite transaction.
import { CairnError, newId, notFound, nowIso, type Entity, type Fact } from '../../core/index.ts';
import { nameKey } from '../../text/index.ts';
import { deletedWhileRetained, type ItemWrite, replacedWithDocument, type VectorRecord } from '../ports.ts';
import type { Db } from './database.ts';
import { syncKeywordIndexes } from './keyword-tables.ts';
import { json, NOT_PURGING, placeholders } from './rows.ts';
import { checkpoint } from './operations.ts';
import { documentPurging } from './purges.ts';
import { encodeVector } from './vectors/index.ts';
import { prepared } from './statements.ts';

/** Bumped by every write that adds or removes chunks (sessions.ts caches a bank's sessions until it moves). */
export function bumpSessionVersion(db: Db, bankId: string): void {
  prepared(
    db,
    `INSERT INTO bank_versions (bank_id, session_version) VALUES (?, 1)
     ON CONFLICT(bank_id) DO UPDATE SET session_version = session_version + 1`,
  ).run(bankId);
}

/** Claims the bank's embedder on first use; refuses vectors of another embedder. */
export function checkEmbedder(db: Db, bankId: string, embedder: string): void {
  const row = prepared(db, 'SELECT embedder FROM banks WHERE id = ?').get(bankId) as { embedder: string | null } | undefined;
  if (!row) throw notFound('bank', bankId);
  if (row.embedder === null) prepared(db, 'UPDATE banks SET embedder = ? WHERE id = ?').run(embedder, bankId);
  else if (row.embedder !== embedder)
    throw new CairnError(
      'embedder_mismatch',
      `bank '${bankId}' holds vectors of '${row.embedder}' but the active embedder is '${embedder}'; ` +
        `run 'cairn reembed ${bankId}' or start Cairn with the bank's embedder`,
    );
}

/** Inserts the fact and its entity mentions; returns its rid. */
export function insertFact(db: Db, f: Fact): number {
  const { lastInsertRowid } = prepared(
    db,
    `INSERT INTO facts (id, bank_id, kind, text, occurred_start, occurred_end, mentioned_at, document_id, chunk_id, item_id,
       span_start, span_end, speaker, metadata, tags, status, valid_from, valid_to, superseded_by, superseded_at,
       consolidated_at, created_at, updated_at, session, stance, context)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    f.id,
    f.bankId,
    f.kind,
    f.text,
    f.occurredStart,
    f.occurredEnd,
    f.mentionedAt,
    f.source?.documentId ?? null,
    f.source?.chunkId ?? null,
    f.source?.itemId ?? null,
    f.source?.start ?? null,
    f.source?.end ?? null,
    f.speaker,
    json(f.metadata),
    json(f.tags),
    f.status,
    f.validFrom,
    f.validTo,
    f.supersededBy,
    f.supersededAt,
    f.consolidatedAt,
    f.createdAt,
    f.updatedAt,
    f.source?.session ?? null,
    f.stance ?? null,
    f.context ?? null,
  );
  const mention = prepared(db, 'INSERT OR IGNORE INTO fact_entities (fact_id, entity_id, bank_id) VALUES (?, ?, ?)');
  for (const e of f.entities) mention.run(f.id, e, f.bankId);
  return Number(lastInsertRowid);
}

export function upsertEntity(db: Db, e: Entity): void {
  prepared(
    db,
    `INSERT INTO entities (id, bank_id, name, aliases, type, mention_count, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET name = excluded.name, aliases = excluded.aliases, type = excluded.type,
       mention_count = excluded.mention_count, first_seen = excluded.first_seen, last_seen = excluded.last_seen`,
  ).run(e.id, e.bankId, e.name, json(e.aliases), e.type, e.mentionCount, e.firstSeen, e.lastSeen);
  const key = prepared(db, 'INSERT OR IGNORE INTO entity_keys (bank_id, key, entity_id) VALUES (?, ?, ?)');
  for (const name of [e.name, ...e.aliases]) {
    const k = nameKey(name);
    if (k) key.run(e.bankId, k, e.id);
  }
}

/** Stores the vectors of facts of the bank; `known` holds the rids of facts the caller has just inserted (the rest
 * are looked up). */
export function putVectors(db: Db, bankId: string, vectors: VectorRecord[], known: ReadonlyMap<string, number> = new Map()): void {
  const rid = prepared(db, 'SELECT rid FROM facts WHERE id = ? AND bank_id = ?');
  const put = prepared(
    db,
    `INSERT INTO fact_vectors (fact_rid, bank_id, vector) VALUES (?, ?, ?)
     ON CONFLICT(fact_rid) DO UPDATE SET vector = excluded.vector`,
  );
  for (const v of vectors) {
    const row = known.get(v.id) ?? (rid.get(v.id, bankId) as { rid: number } | undefined)?.rid;
    if (row === undefined) throw new Error(`vector for unknown fact ${v.id}`);
    put.run(row, bankId, encodeVector(v.vector));
  }
}

/**
 * Writes the items in order in one transaction (keyword indexes included), with the checkpoint of the last one's
 * operation.
 */
export function writeItems(db: Db, ws: ItemWrite[]): void {
  db.transaction(() => {
    for (const w of ws) writeItem(db, w);
    const operation = ws.findLast((w) => w.operation)?.operation;
    if (operation) checkpoint(db, operation);
    syncKeywordIndexes(db);
  }).immediate();
}

function writeItem(db: Db, w: ItemWrite): void {
  db.transaction(() => {
    if (!prepared(db, `SELECT 1 FROM banks WHERE id = ? AND ${NOT_PURGING}`).get(w.bankId)) throw notFound('bank', w.bankId);
    if (w.vectors.length) checkEmbedder(db, w.bankId, w.embedder);
    if (w.continues && !prepared(db, 'SELECT 1 FROM documents WHERE bank_id = ? AND id = ?').get(w.bankId, w.document.id))
      throw deletedWhileRetained(w.document.id);
    // A document being deleted a batch at a time (deletes.ts) would lose what this write stores to the purge's last step.
    if (documentPurging(db, w.bankId, w.document.id))
      throw new CairnError('conflict', `document '${w.document.id}' is being deleted; retain it again once its DELETE has answered`);
    const now = nowIso();
    prepared(
      db,
      `INSERT INTO documents (bank_id, id, content_hash, metadata, tags, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(bank_id, id) DO UPDATE SET content_hash = excluded.content_hash, metadata = excluded.metadata,
           tags = excluded.tags, updated_at = excluded.updated_at`,
    ).run(w.bankId, w.document.id, w.document.contentHash, json(w.document.metadata), json(w.document.tags), w.document.createdAt, now);
    if (w.removeChunkIds.length) removeChunks(db, w.bankId, w.document.id, w.removeChunkIds);
    const chunk = prepared(
      db,
      `INSERT INTO chunks (id, bank_id, document_id, idx, item_id, text, content_hash, speaker, timestamp, context, metadata, tags, session)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const c of w.chunks)
      chunk.run(
        c.id,
        w.bankId,
        c.documentId,
        c.index,
        c.itemId,
        c.text,
        c.contentHash,
        c.speaker,
        c.timestamp,
        c.context,
        json(c.metadata),
        json(c.tags),
        c.session ?? null,
      );
    for (const e of w.entities) upsertEntity(db, e);
    // The rids of the facts written here: their vectors need no lookup, and links between two of them no check.
    const written = new Map<string, number>();
    for (const f of w.facts) {
      const rid = insertFact(db, f);
      if (f.bankId === w.bankId) written.set(f.id, rid);
    }
    // Links to facts that no longer exist (removed with a changed chunk in this same write, or deleted since the
    // retain read them) are dropped.
    const link = prepared(
      db,
      `INSERT INTO fact_links (bank_id, from_id, to_id, type, weight)
         SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM facts WHERE id = ?) AND EXISTS (SELECT 1 FROM facts WHERE id = ?)
         ON CONFLICT(from_id, to_id, type) DO UPDATE SET weight = max(weight, excluded.weight)`,
    );
    const ownLink = prepared(
      db,
      `INSERT INTO fact_links (bank_id, from_id, to_id, type, weight) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(from_id, to_id, type) DO UPDATE SET weight = max(weight, excluded.weight)`,
    );
    for (const l of w.links)
      if (written.has(l.from) && written.has(l.to)) ownLink.run(w.bankId, l.from, l.to, l.type, l.weight);
      else link.run(w.bankId, l.from, l.to, l.type, l.weight, l.from, l.to);
    putVectors(db, w.bankId, w.vectors, written);
    if (w.chunks.length || w.removeChunkIds.length) bumpSessionVersion(db, w.bankId);
  }).immediate();
}

/** Removes chunks and, by cascade, their facts with vectors, keyword entries, links and evidence. */
function removeChunks(db: Db, bankId: string, documentId: string, chunkIds: string[]): void {
  const reason = replacedWithDocument(documentId);
  for (let i = 0; i < chunkIds.length; i += 500) {
    const part = chunkIds.slice(i, i + 500);
    // Each fact that goes leaves a tombstone: asked for later, it says where it went.
    const gone = prepared(db, `DELETE FROM facts WHERE bank_id = ? AND chunk_id IN (${placeholders(part.length)}) RETURNING id`)
      .pluck()
      .all(bankId, ...part) as string[];
    for (const id of gone) tombstone(db, bankId, 'fact', id, reason);
    prepared(db, `DELETE FROM chunks WHERE bank_id = ? AND id IN (${placeholders(part.length)})`).run(bankId, ...part);
  }
  pruneEntities(db, bankId);
}

/** Entities no fact mentions any more are removed (with their keys). */
export function pruneEntities(db: Db, bankId: string): void {
  prepared(
    db,
    `DELETE FROM entities WHERE bank_id = ? AND NOT EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = entities.id)`,
  ).run(bankId);
}

export function tombstone(db: Db, bankId: string, kind: string, targetId: string, reason: string): void {
  prepared(db, 'INSERT INTO tombstones (id, bank_id, kind, target_id, reason, at) VALUES (?, ?, ?, ?, ?, ?)').run(
    newId('tmb'),
    bankId,
    kind,
    targetId,
    reason,
    nowIso(),
  );
}

/** Observation ids that cite any of the facts (before those facts go). */
export function observationsCiting(db: Db, factIds: string[]): string[] {
  const out = new Set<string>();
  for (let i = 0; i < factIds.length; i += 500) {
    const part = factIds.slice(i, i + 500);
    const rows = prepared(db, `SELECT DISTINCT observation_id AS id FROM evidence WHERE fact_id IN (${placeholders(part.length)})`).all(
      ...part,
    ) as Array<{ id: string }>;
    for (const r of rows) out.add(r.id);
  }
  return [...out];
}
