// Forgetting that really forgets: deleting facts, documents and banks cascades through facts, vectors,
// keyword entries, links and evidence; observations that cited deleted facts are blanked (text, entities,
// vector, every revision) until consolidation rebuilds them from what is left; facts the deleted ones had
// superseded are current again; a tombstone records what was deleted, when and why, never the content. Large
// documents and banks are deleted a batch of rows per transaction, so other requests are served in between.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { nowIso } from '../../core/index.ts';
import { FORGOTTEN_TEXT as FORGOTTEN, type DeleteResult, withDocument } from '../ports.ts';
import type { Db } from './database.ts';
import { dropKeywordIndex, keywordShadowTables, syncKeywordIndexes } from './keyword-tables.ts';
import { forgetBankOperations } from './operations.ts';
import { bankPurging, documentPurging } from './purges.ts';
import { NOT_PURGING, placeholders } from './rows.ts';
import { bumpSessionVersion, observationsCiting, pruneEntities, tombstone } from './writes.ts';
import { prepared } from './statements.ts';

/**
 * Observations citing deleted facts may quote them anywhere in their text and history (texts accumulate), so
 * in the same transaction they lose their text, entities and vector, and every revision of theirs is redacted;
 * consolidation's revise step then rebuilds them from the evidence left (or removes them).
 */
function blankObservations(db: Db, bankId: string, observationIds: string[]): void {
  const now = nowIso();
  for (const id of observationIds) {
    prepared(
      db,
      `UPDATE observation_revisions SET old_text = CASE WHEN old_text IS NULL THEN NULL ELSE '${FORGOTTEN}' END, new_text = '${FORGOTTEN}'
       WHERE bank_id = ? AND observation_id = ?`,
    ).run(bankId, id);
    prepared(db, `UPDATE facts SET text = '${FORGOTTEN}', updated_at = ? WHERE bank_id = ? AND id = ? AND kind = 'observation'`).run(
      now,
      bankId,
      id,
    );
    prepared(db, 'DELETE FROM fact_entities WHERE fact_id = ?').run(id);
    prepared(db, 'DELETE FROM fact_vectors WHERE fact_rid = (SELECT rid FROM facts WHERE id = ? AND bank_id = ?)').run(id, bankId);
  }
}

function deleteFactRows(db: Db, bankId: string, factIds: string[]): string[] {
  const deleted = new Set(factIds);
  const observationIds = observationsCiting(db, factIds).filter((id) => !deleted.has(id));
  // One pass over the bank's revisions, each one's facts looked up in the deleted ones (SQLite builds the IN list's
  // index once): a pass per deleted fact made deleting a large document quadratic (tens of seconds).
  if (factIds.length)
    prepared(
      db,
      `UPDATE observation_revisions SET old_text = CASE WHEN old_text IS NULL THEN NULL ELSE '${FORGOTTEN}' END, new_text = '${FORGOTTEN}'
       WHERE bank_id = ? AND EXISTS (SELECT 1 FROM json_each(fact_ids) j WHERE j.value IN (SELECT value FROM json_each(?)))`,
    ).run(bankId, JSON.stringify(factIds));
  blankObservations(db, bankId, observationIds);
  const now = nowIso();
  for (let i = 0; i < factIds.length; i += 500) {
    const part = factIds.slice(i, i + 500);
    // A fact whose replacement is forgotten is current again.
    prepared(
      db,
      `UPDATE facts SET status = 'active', superseded_by = NULL, superseded_at = NULL, valid_to = NULL, updated_at = ?
       WHERE bank_id = ? AND status = 'superseded' AND superseded_by IN (${placeholders(part.length)})`,
    ).run(now, bankId, ...part);
    // A deleted observation takes its history with it.
    prepared(db, `DELETE FROM observation_revisions WHERE bank_id = ? AND observation_id IN (${placeholders(part.length)})`).run(
      bankId,
      ...part,
    );
    prepared(db, `DELETE FROM facts WHERE bank_id = ? AND id IN (${placeholders(part.length)})`).run(bankId, ...part);
  }
  return observationIds;
}

export function deleteFacts(db: Db, bankId: string, factIds: string[], reason: string): DeleteResult {
  return db
    .transaction(() => {
      const kinds = new Map<string, string>();
      for (const id of factIds) {
        const row = prepared(db, 'SELECT kind FROM facts WHERE id = ? AND bank_id = ?').get(id, bankId) as { kind: string } | undefined;
        if (row) kinds.set(id, row.kind);
      }
      const existing = [...kinds.keys()];
      const observationIds = deleteFactRows(db, bankId, existing);
      for (const id of existing) tombstone(db, bankId, kinds.get(id) === 'observation' ? 'observation' : 'fact', id, reason);
      pruneEntities(db, bankId);
      syncKeywordIndexes(db);
      return { factIds: existing, observationIds };
    })
    .immediate();
}

/** Facts a document's delete removes per transaction. Each fact costs about 100 µs with its rows, links, vector and
 * keyword entries, and a transaction holds the event loop: a 1 MB document (25k facts) in one transaction held the
 * server for seconds. */
export const PURGE_BATCH = 500;

/** The purges this process runs, per connection ('bank <id>', 'document <bank> <id>'), each with its outcome: a
 * second delete of the same document waits for it (and answers all it deleted), and a store resuming purges at its
 * opening leaves them alone. */
const running = new WeakMap<Db, Map<string, Promise<unknown>>>();

/** Runs a purge, known as running meanwhile; one already running under the key is joined instead. */
function tracked<T>(db: Db, key: string, purge: () => Promise<T>): Promise<T> {
  let purges = running.get(db);
  if (!purges) running.set(db, (purges = new Map()));
  const current = purges.get(key) as Promise<T> | undefined;
  if (current) return current;
  const started = purge().finally(() => purges.delete(key));
  purges.set(key, started);
  return started;
}
const isRunning = (db: Db, key: string): boolean => running.get(db)?.has(key) ?? false;

/** About how long one transaction of a purge should hold the event loop: it ends there, however few rows it removed
 * (facts with hundreds of links, a large bank's pages off a cold cache: 500 facts of a 1M-fact bank took 1-4 s). */
const STEP_MS = 50;
/** A transaction removes its rows this share of its `max` at a time, looking at the clock between two. */
const SUB_STEPS = 64;

/** Removes rows within a step's transaction through `remove(n)` (removing at most n, answering how many): a few at a
 * time until `max` are removed or STEP_MS has passed (true: there may be more) or none are left (false). */
type Within = (remove: (n: number) => number) => boolean;

/** How a purge runs: at most `batch` facts per transaction, and `pause` between two transactions (a turn of the event
 * loop; the store's API steps aside for reads there, see core's readsFirst). */
export interface PurgePace {
  batch: number;
  pause: () => Promise<void>;
}
export const DEFAULT_PACE: PurgePace = { batch: PURGE_BATCH, pause: () => nextTurn() };

/**
 * Runs `step(within)` (one transaction, removing its rows through `within`: at most `max` of them, for about STEP_MS)
 * until a step answers that no rows are left, with `pause` between two steps.
 */
async function inSteps(db: Db, max: number, step: (within: Within) => boolean, what: string, pause: () => Promise<void>): Promise<void> {
  const sub = Math.max(1, Math.ceil(max / SUB_STEPS));
  // The commit writes what the removals dirtied, after the clock below stopped (100-285 ms for a step of link-heavy
  // facts): what a step spends outside its removals grows with them, so the next step's removals get the share of
  // STEP_MS that leaves room for it at the last step's ratio.
  let removing = 0;
  let budget = STEP_MS;
  const within: Within = (remove) => {
    const started = performance.now();
    try {
      for (let removed = 0; ; ) {
        const ask = Math.min(sub, max - removed);
        const n = remove(ask);
        if (n < ask) return false;
        removed += n;
        if (removed >= max || performance.now() - started >= budget) return true;
      }
    } finally {
      removing = performance.now() - started;
    }
  };
  for (;;) {
    const started = performance.now();
    removing = 0;
    if (!step(within)) return;
    const outside = Math.max(0, performance.now() - started - removing);
    budget = removing > 0 ? Math.max(STEP_MS / 10, STEP_MS / (1 + outside / removing)) : STEP_MS;
    await pause();
    if (!db.open) throw new Error(`the store closed while ${what} was being deleted; it is finished when the store opens again`);
  }
}

/**
 * Deletes the document and its facts (null when it does not exist). A document with more than a step holds is
 * deleted over several transactions with `pace.pause` between them: the first records the purge
 * (document_purges), so no retain writes the document meanwhile and a purge a crash interrupted is finished by
 * resumePurges; the last removes the document, its chunks and the record. Every transaction leaves the store whole:
 * each deleted fact has its tombstone, its observations are blanked and its keyword entries are gone.
 */
export async function deleteDocument(
  db: Db,
  bankId: string,
  documentId: string,
  reason: string,
  pace: PurgePace = DEFAULT_PACE,
): Promise<DeleteResult | null> {
  const begun = db
    .transaction(() => {
      if (!prepared(db, 'SELECT 1 FROM documents WHERE bank_id = ? AND id = ?').get(bankId, documentId)) return false;
      prepared(db, 'INSERT INTO document_purges (bank_id, document_id, reason, started_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
        bankId,
        documentId,
        reason,
        nowIso(),
      );
      return true;
    })
    .immediate();
  if (!begun) return null;
  return tracked(db, `document ${bankId} ${documentId}`, () => purgeDocument(db, bankId, documentId, reason, pace));
}

/** Deletes a recorded purge's facts a batch per transaction, then the document (see deleteDocument). */
async function purgeDocument(db: Db, bankId: string, documentId: string, reason: string, pace: PurgePace): Promise<DeleteResult> {
  const { batch } = pace;
  const factIds: string[] = [];
  const observationIds = new Set<string>();
  // Another purge of the document (another connection's, or a resumption that read its list earlier) may finish it
  // first, and the document be retained again since: each step goes on only while the purge is recorded.
  const recorded = (): boolean => documentPurging(db, bankId, documentId);
  const deleteSome = (limit: number): number => {
    const ids = prepared(db, 'SELECT id FROM facts WHERE bank_id = ? AND document_id = ? ORDER BY rid LIMIT ?')
      .pluck()
      .all(bankId, documentId, limit) as string[];
    for (const id of deleteFactRows(db, bankId, ids)) observationIds.add(id);
    for (const id of ids) tombstone(db, bankId, 'fact', id, withDocument(reason, documentId));
    factIds.push(...ids);
    return ids.length;
  };
  await inSteps(
    db,
    batch,
    (within) =>
      db
        .transaction(() => {
          if (!recorded()) return false;
          const more = within(deleteSome);
          syncKeywordIndexes(db);
          return more;
        })
        .immediate(),
    `document '${documentId}'`,
    pace.pause,
  );
  db.transaction(() => {
    if (!recorded()) return;
    // Facts a retain wrote since the last batch (one that began before the purge was recorded) go the same way.
    while (deleteSome(batch) > 0);
    if (prepared(db, 'DELETE FROM documents WHERE bank_id = ? AND id = ?').run(bankId, documentId).changes > 0)
      tombstone(db, bankId, 'document', documentId, reason);
    prepared(db, 'DELETE FROM document_purges WHERE bank_id = ? AND document_id = ?').run(bankId, documentId);
    pruneEntities(db, bankId);
    syncKeywordIndexes(db);
    bumpSessionVersion(db, bankId);
  }).immediate();
  const deleted = new Set(factIds);
  return { factIds, observationIds: [...observationIds].filter((id) => !deleted.has(id)) };
}

/** Finishes the deletes of banks and documents a crash (or a closed store) interrupted, one after another. */
export async function resumePurges(
  db: Db,
  pace: PurgePace = DEFAULT_PACE,
  onBankDeleted: (bankId: string) => void = () => {},
): Promise<number> {
  // Not within the opening of the store: after it, beside whatever the process does first.
  await nextTurn();
  if (!db.open) return 0;
  const banks = prepared(db, 'SELECT bank_id FROM bank_purges ORDER BY started_at').pluck().all() as string[];
  let resumed = 0;
  // Each still recorded when its turn comes: a delete in this process or another may have finished it meanwhile.
  for (const bankId of banks) {
    if (isRunning(db, `bank ${bankId}`) || !bankPurging(db, bankId)) continue;
    await tracked(db, `bank ${bankId}`, () => purgeBank(db, bankId, pace));
    onBankDeleted(bankId);
    resumed++;
  }
  const pending = prepared(
    db,
    'SELECT bank_id AS bankId, document_id AS documentId, reason FROM document_purges ORDER BY started_at',
  ).all() as Array<{
    bankId: string;
    documentId: string;
    reason: string;
  }>;
  for (const p of pending) {
    const key = `document ${p.bankId} ${p.documentId}`;
    if (isRunning(db, key) || !documentPurging(db, p.bankId, p.documentId)) continue;
    await tracked(db, key, () => purgeDocument(db, p.bankId, p.documentId, p.reason, pace));
    resumed++;
  }
  return resumed;
}

/** Tables a bank's delete empties a batch of rows at a time, in this order (facts first: their cascades reach links,
 * mentions, vectors and evidence, and leave vector changes behind). */
const BANK_TABLES: ReadonlyArray<{ table: string; also?: string; rows: number; remover?: typeof linksFirst }> = [
  // Rows per batch, as a multiple of the batch: facts and chunks cascade to several tables and keyword entries; the
  // rest are rows of a table and its indexes. Facts go with their links removed first (linksFirst).
  { table: 'facts', rows: 1, remover: linksFirst },
  { table: 'chunks', rows: 1 },
  { table: 'vector_changes', rows: 20 },
  { table: 'observation_revisions', rows: 4 },
  { table: 'entity_keys', rows: 20 },
  { table: 'entities', rows: 4 },
  { table: 'documents', rows: 4 },
  // Its tombstones but the one its delete left.
  { table: 'tombstones', also: "AND kind != 'bank'", rows: 20 },
];

/**
 * Deletes the bank and everything in it (false when there is no such bank, or its delete has already begun). The
 * first transaction hides the bank (bank_purges), leaves its tombstone and fails its unfinished operations; its rows
 * then go step by step (`pace`: at most `batch` facts, about 50 ms each, `pause` between two), and the last removes the
 * bank's row, its keyword tables and the purge record. A delete a crash cut short is finished by resumePurges.
 */
export async function deleteBank(
  db: Db,
  bankId: string,
  reason: string,
  pace: PurgePace = DEFAULT_PACE,
  hidden: () => void = () => {},
): Promise<boolean> {
  const begun = db
    .transaction(() => {
      if (!prepared(db, `SELECT 1 FROM banks WHERE id = ? AND ${NOT_PURGING}`).get(bankId)) return false;
      prepared(db, 'INSERT INTO bank_purges (bank_id, reason, started_at) VALUES (?, ?, ?)').run(bankId, reason, nowIso());
      forgetBankOperations(db, bankId);
      prepared(db, 'DELETE FROM bank_write_leases WHERE bank_id = ?').run(bankId);
      tombstone(db, bankId, 'bank', bankId, reason);
      return true;
    })
    .immediate();
  if (!begun) return false;
  hidden();
  await tracked(db, `bank ${bankId}`, () => purgeBank(db, bankId, pace));
  return true;
}

/** Removes the next `n` rows of a bank's table (those matching `also` too), answering how many it removed. */
function rowsOf(table: string, also: string): (db: Db, bankId: string) => (n: number) => number {
  return (db, bankId) => {
    const remove = prepared(db, `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE bank_id = ? ${also} LIMIT ?)`);
    return (n) => remove.run(bankId, n).changes;
  };
}

/** Links a bank's purge removes per fact it asks for, before the facts themselves. */
const LINKS_PER_FACT = 8;

/**
 * Removes the next `n` facts of a bank, their links first, a bounded number at a time: a fact's
 * delete cascades to every link into it, and a sentence with thousands of near-copies (a hub: 12k links at 1M facts)
 * held one transaction for seconds on a cold cache, which the step's clock cannot cut. While links are left, the
 * call removes only links and answers `n` (progress, so the step looks at its clock and goes on).
 */
function linksFirst(db: Db, bankId: string): (n: number) => number {
  const next = prepared(db, 'SELECT id FROM facts WHERE bank_id = ? LIMIT ?').pluck();
  const facts = prepared(db, 'DELETE FROM facts WHERE bank_id = ? AND id IN (SELECT value FROM json_each(?))');
  const out = prepared(db, 'DELETE FROM fact_links WHERE rowid IN (SELECT rowid FROM fact_links WHERE from_id = ? LIMIT ?)');
  const into = prepared(db, 'DELETE FROM fact_links WHERE rowid IN (SELECT rowid FROM fact_links WHERE to_id = ? LIMIT ?)');
  return (n) => {
    let budget = n * LINKS_PER_FACT;
    const ids = next.all(bankId, n) as string[];
    for (const id of ids) {
      budget -= out.run(id, budget).changes;
      if (budget > 0) budget -= into.run(id, budget).changes;
      if (budget <= 0) return n;
    }
    facts.run(bankId, JSON.stringify(ids));
    return ids.length;
  };
}

async function purgeBank(db: Db, bankId: string, { batch, pause }: PurgePace): Promise<void> {
  const what = `bank '${bankId}'`;
  // As for a document: a purge finished by another connection (and the bank created again since) is left alone.
  const recorded = (): boolean => bankPurging(db, bankId);
  for (const { table, also = '', rows, remover = rowsOf(table, also) } of BANK_TABLES) {
    const remove = remover(db, bankId);
    // The keyword changes the deletes record are dropped with each step: the bank's keyword tables go whole.
    const step = (within: Within): boolean =>
      db
        .transaction(() => {
          if (!recorded()) return false;
          const more = within(remove);
          prepared(db, 'DELETE FROM keyword_changes WHERE bank_id = ?').run(bankId);
          return more;
        })
        .immediate();
    await inSteps(db, batch * rows, step, what, pause);
  }
  // A large keyword table's pages take seconds to free in one DROP: its shadow tables are emptied a step at a time
  // first (the bank is hidden, nothing reads them), then dropped. SQLite's defensive mode, which forbids writing
  // shadow tables, is lifted for those statements alone.
  for (const table of keywordShadowTables(db, bankId)) {
    const step = (within: Within): boolean =>
      db
        .transaction(() => {
          // Another process finishing the same purge (both resumed it) may have dropped it.
          if (!recorded() || !prepared(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)) return false;
          db.unsafeMode(true);
          try {
            // Prepared here: the mode is read when a statement is compiled.
            const remove = db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} LIMIT ?)`);
            return within((n) => remove.run(n).changes);
          } finally {
            db.unsafeMode(false);
          }
        })
        .immediate();
    await inSteps(db, batch * 20, step, what, pause);
  }
  db.transaction(() => {
    if (!recorded()) return;
    prepared(db, 'DELETE FROM banks WHERE id = ?').run(bankId);
    // Rows without a foreign key to banks (mentions, links and evidence went with the facts).
    for (const table of ['entity_keys', 'vector_changes', 'bank_write_leases'])
      prepared(db, `DELETE FROM ${table} WHERE bank_id = ?`).run(bankId);
    // Its operations were settled when its delete began (forgetBankOperations): the failed ones stay readable.
    // Its earlier tombstones go; the one its delete left stays.
    prepared(
      db,
      `DELETE FROM tombstones WHERE bank_id = ? AND rowid NOT IN (SELECT rowid FROM tombstones WHERE bank_id = ? AND kind = 'bank' ORDER BY at DESC LIMIT 1)`,
    ).run(bankId, bankId);
    dropKeywordIndex(db, bankId);
    prepared(db, 'DELETE FROM bank_purges WHERE bank_id = ?').run(bankId);
  }).immediate();
}
