// The lifecycle of a bank's own full-text indexes (statements/keyword-schema.ts): created when the bank is
// created or first used by this process, dropped when it is deleted, created for existing banks by the upgrade
// migration, and dropped by `cairn reconcile` when a bank's deletion died before dropping them (orphanBankIndexes).
// Schema commands cannot share a transaction with data writes in Neo4j, so each runs on its own
// (auto-commit), before the write that needs it; all are idempotent, so two processes racing are harmless.
import type { Neo4jConnection } from './connection.ts';
import { KEYWORD_INDEX_PREFIX, keywordNames, orphanIndexNames } from './keyword-names.ts';
import type { Statement } from './statement.ts';
import * as ks from './statements/keyword-schema.ts';

/** How long a new bank's (empty) indexes may take to come online. */
const ONLINE_TIMEOUT_SECONDS = 300;
/** How long the upgrade waits for one existing bank's indexes to be populated. */
const UPGRADE_TIMEOUT_SECONDS = 3600;

/**
 * Neo4j can refuse `CREATE ... IF NOT EXISTS` when another transaction created the same index between its check
 * and its commit; the index then exists, which is what was asked.
 */
const ALREADY_EXISTS = /EquivalentSchemaRuleAlreadyExists|IndexWithNameAlreadyExists|ConstraintWithNameAlreadyExists/;

const codeOf = (e: unknown): string => (e && typeof e === 'object' && 'code' in e ? String((e as { code: unknown }).code) : '');

/** Runs one schema command in its own transaction, treating "it already exists" from a concurrent creator as done. */
export async function runSchemaCommand(db: Neo4jConnection, s: Statement): Promise<void> {
  try {
    await db.autoCommit(s);
  } catch (e) {
    if (!ALREADY_EXISTS.test(codeOf(e))) throw e;
  }
}

/** Creates the bank's indexes (if missing) and waits until both are online. */
export async function createBankIndexes(db: Neo4jConnection, bankId: string, timeoutSeconds = ONLINE_TIMEOUT_SECONDS): Promise<void> {
  for (const s of ks.createBankIndexes(bankId)) await runSchemaCommand(db, s);
  const n = keywordNames(bankId);
  for (const index of [n.factIndex, n.chunkIndex]) await db.autoCommit(ks.awaitIndex(index, timeoutSeconds));
}

/**
 * Drops the bank's indexes, unless the bank exists (again): a bank re-created under the same id by another
 * process while this one swept the old one keeps the indexes it shares names with.
 */
export async function dropBankIndexes(db: Neo4jConnection, bankId: string): Promise<void> {
  if ((await db.read(ks.bankExists(bankId))).length) return;
  for (const s of ks.dropBankIndexes(bankId)) await db.autoCommit(s);
}

const bankIds = async (db: Neo4jConnection): Promise<string[]> => (await db.read(ks.bankIds())).map((r) => String(r.id));

/**
 * Keyword indexes of banks that no longer exist: left by a deletion that died between sweeping the bank's nodes
 * and dropping them, or created by a process that found the bank just before it was deleted. Indexes are listed
 * before banks: a bank's node commits before its indexes are created, so a live bank whose index is listed is
 * listed too. (SHOW runs auto-commit, as the schema commands do.)
 */
export async function orphanBankIndexes(db: Neo4jConnection): Promise<string[]> {
  const names = (await db.autoCommit(ks.fulltextIndexNames(KEYWORD_INDEX_PREFIX))).map((r) => String(r.name));
  if (names.length === 0) return [];
  return orphanIndexNames(names, await bankIds(db));
}

/**
 * Drops those of the named indexes that are still orphans (a bank re-created meanwhile under the same id keeps
 * its indexes; a name not built by keywordNames is never dropped). Returns the names dropped.
 */
export async function dropOrphanBankIndexes(db: Neo4jConnection, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const orphans = orphanIndexNames(names, await bankIds(db));
  for (const name of orphans) await db.autoCommit(ks.dropIndex(name));
  return orphans;
}

/**
 * The upgrade from the shared `fact_text`/`chunk_text` indexes (migration 005): every bank's facts and chunks get
 * its labels, in batches of `batch` nodes, then its indexes are created and populated. Re-running it (a start
 * that died half-way, two processes starting together) only redoes what is missing.
 */
export async function upgradeToBankIndexes(db: Neo4jConnection, batch = 5000): Promise<void> {
  for (const bankId of await bankIds(db)) {
    for (const s of ks.labelBankNodes(bankId, batch)) await db.autoCommit(s);
    await createBankIndexes(db, bankId, UPGRADE_TIMEOUT_SECONDS);
  }
}

/**
 * Each bank's fact index made again with the properties it reads now (a fact's text and context): Neo4j cannot
 * change an index's properties, so the old one is dropped first. Keyword searches of a bank find no index for the
 * moment between; a start that dies half-way makes the missing ones when run again.
 */
export async function rebuildFactIndexes(db: Neo4jConnection): Promise<void> {
  for (const bankId of await bankIds(db)) {
    await db.autoCommit(ks.dropIndex(keywordNames(bankId).factIndex));
    await createBankIndexes(db, bankId, UPGRADE_TIMEOUT_SECONDS);
  }
}

/**
 * Which banks this process knows to have their indexes, so writes and searches check the schema once per bank and
 * process. A bank deleted elsewhere leaves a stale entry: its writes fail anyway (no bank), and a search that
 * fails on a dropped index calls `forget` and checks again (indexes.ts).
 */
export class KeywordSchema {
  private readonly ready = new Map<string, Promise<boolean>>();

  constructor(private readonly db: Neo4jConnection) {}

  /** Makes sure the bank's indexes exist and are online. False when the bank does not exist (nothing created). */
  ensure(bankId: string): Promise<boolean> {
    let done = this.ready.get(bankId);
    if (!done) {
      const created = this.create(bankId);
      // Only a bank found with its indexes stays remembered (unless forgotten and asked again meanwhile).
      const drop = (): void => {
        if (this.ready.get(bankId) === created) this.ready.delete(bankId);
      };
      created.then((exists) => (exists ? undefined : drop()), drop);
      this.ready.set(bankId, created);
      done = created;
    }
    return done;
  }

  /** Forgets what this process knew of the bank's indexes (the next `ensure` checks the server again). */
  forget(bankId: string): void {
    this.ready.delete(bankId);
  }

  private async create(bankId: string): Promise<boolean> {
    if ((await this.db.read(ks.bankExists(bankId))).length === 0) return false;
    await createBankIndexes(this.db, bankId);
    return true;
  }
}
