// Versioned, forward-only schema migrations for Neo4j: the numbered .cypher files of migrations/neo4j and the
// numbered code migrations below (for what Cypher alone cannot do), applied at start in name order, each recorded
// in a (:Migration {name}) node once all of it ran. Every step is idempotent (IF [NOT] EXISTS), so two processes
// starting together, or a start that died half-way, are harmless.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Neo4jConnection } from './connection.ts';
import { rebuildFactIndexes, runSchemaCommand, upgradeToBankIndexes } from './keyword-schema.ts';
import { cypher, type Statement } from './statement.ts';

export const NEO4J_MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../migrations/neo4j');

/** The statements of a migration file: `//` comment lines dropped, split at semicolons that end a line. */
export function splitCypher(text: string): string[] {
  const body = text
    .split(/\r?\n/)
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n');
  return body
    .split(/;[ \t]*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export interface MigrationFile {
  name: string;
  statements: string[];
}

export function readMigrations(dir: string = NEO4J_MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cypher'))
    .sort()
    .map((name) => ({ name, statements: splitCypher(readFileSync(join(dir, name), 'utf8')) }));
}

/** A migration: the statements of a .cypher file, or code (for steps that depend on the data). */
export type Migration = ({ kind: 'cypher' } & MigrationFile) | { kind: 'code'; name: string; run: (db: Neo4jConnection) => Promise<void> };

/**
 * Chunks stored before sessions: their document is their session, unless its id was derived for a standalone item
 * (`doc_` and 24 hex digits) or it holds a thread's compressed memory; facts take their chunk's. In batches (CALL IN
 * TRANSACTIONS: auto-commit only); running them again changes nothing.
 */
export const sessionBackfill = (): Statement[] => [
  cypher(
    `MATCH (c:Chunk) WHERE c.session IS NULL AND NOT c.documentId =~ 'doc_[0-9a-f]{24}' AND NOT c.documentId STARTS WITH 'thread-memory:'
     CALL (c) { SET c.session = c.documentId } IN TRANSACTIONS OF 10000 ROWS`,
  ),
  cypher(
    `MATCH (f:Fact) WHERE f.session IS NULL AND f.chunkId IS NOT NULL
     CALL (f) { MATCH (c:Chunk {id: f.chunkId}) WHERE c.session IS NOT NULL SET f.session = c.session } IN TRANSACTIONS OF 10000 ROWS`,
  ),
];

/**
 * Facts stored before facts had a stance of their own: it is read from their metadata (stored as JSON text, so
 * matched as written there). In batches; running it again changes nothing.
 */
export const stanceBackfill = (): Statement[] =>
  (['instruction', 'preference'] as const).map((stance) =>
    cypher(
      `MATCH (f:Fact) WHERE f.stance IS NULL AND f.kind <> 'experience' AND f.metadata CONTAINS $written
       CALL (f) { SET f.stance = $stance } IN TRANSACTIONS OF 10000 ROWS`,
      { stance, written: JSON.stringify({ stance }).slice(1, -1) },
    ),
  );

/**
 * Code migrations, numbered in the same sequence as the files. 005: each bank gets its own full-text indexes
 * (their names derive from a hash of the bank id, which Cypher cannot compute); 006 then drops the shared ones.
 * 010: the sessions of what was stored before 009 indexed them. 012: stances from metadata, and each bank's fact
 * index rebuilt to read a fact's context beside its text.
 */
export const CODE_MIGRATIONS: Migration[] = [
  { kind: 'code', name: '005_bank_keyword_indexes', run: (db) => upgradeToBankIndexes(db) },
  {
    kind: 'code',
    name: '010_session_backfill',
    run: async (db) => {
      for (const s of sessionBackfill()) await db.autoCommit(s);
    },
  },
  {
    kind: 'code',
    name: '012_fact_stance_context',
    run: async (db) => {
      for (const s of stanceBackfill()) await db.autoCommit(s);
      await rebuildFactIndexes(db);
    },
  },
];

/** Every migration, files and code, in the order they apply. */
export function allMigrations(dir: string = NEO4J_MIGRATIONS_DIR): Migration[] {
  const files: Migration[] = readMigrations(dir).map((f) => ({ kind: 'cypher', ...f }));
  return [...files, ...CODE_MIGRATIONS].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export const appliedMigrations = (): Statement => cypher('MATCH (m:Migration) RETURN m.name AS name');

export const recordMigration = (name: string, at: string): Statement =>
  cypher('MERGE (m:Migration {name: $name}) ON CREATE SET m.appliedAt = $at', { name, at });

/** Applies the migrations not recorded yet. Returns the names applied now. */
export async function migrateNeo4j(db: Neo4jConnection, dir: string = NEO4J_MIGRATIONS_DIR): Promise<string[]> {
  // The first migration creates the constraint the records rely on; running it again is a no-op.
  const done = new Set((await db.read(appliedMigrations())).map((r) => String(r.name)));
  const applied: string[] = [];
  for (const m of allMigrations(dir)) {
    if (done.has(m.name)) continue;
    if (m.kind === 'code') await m.run(db);
    else for (const text of m.statements) await runSchemaCommand(db, cypher(text));
    await db.write(recordMigration(m.name, new Date().toISOString()));
    applied.push(m.name);
  }
  return applied;
}
