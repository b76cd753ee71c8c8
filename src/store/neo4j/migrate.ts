// Versioned, forward-only schema migrations for Neo4j: the numbered .cypher files of migrations/neo4j, applied
// at start in file-name order, each recorded in a (:Migration {name}) node once all its statements ran. Every
// statement is idempotent (IF NOT EXISTS), so two processes starting together, or a start that died half-way,
// are harmless.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Neo4jConnection } from './connection.ts';
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

export const appliedMigrations = (): Statement => cypher('MATCH (m:Migration) RETURN m.name AS name');

export const recordMigration = (name: string, at: string): Statement =>
  cypher('MERGE (m:Migration {name: $name}) ON CREATE SET m.appliedAt = $at', { name, at });

/** Applies the migrations not recorded yet. Returns the names applied now. */
export async function migrateNeo4j(db: Neo4jConnection, dir: string = NEO4J_MIGRATIONS_DIR): Promise<string[]> {
  const files = readMigrations(dir);
  // The first migration creates the constraint the records rely on; running it again is a no-op.
  const done = new Set((await db.read(appliedMigrations())).map((r) => String(r.name)));
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.name)) continue;
    for (const text of file.statements) await db.autoCommit(cypher(text));
    await db.write(recordMigration(file.name, new Date().toISOString()));
    applied.push(file.name);
  }
  return applied;
}
