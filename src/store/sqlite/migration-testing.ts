// Shared by tests of migrations: a database of the schema as it was before a given migration, to write rows the
// old way and then open it with every migration (an upgrade).
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Db, openDatabase, SQLITE_MIGRATIONS_DIR } from './database.ts';

/** A database of the schema before the given migration (file name prefix), made in dir (its file: `db.name`). */
export function databaseBefore(dir: string, migration: string): Db {
  const oldMigrations = join(dir, 'migrations');
  mkdirSync(oldMigrations);
  for (const f of readdirSync(SQLITE_MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f < migration))
    copyFileSync(join(SQLITE_MIGRATIONS_DIR, f), join(oldMigrations, f));
  return openDatabase(join(dir, 'old', 'cairn.db'), oldMigrations);
}
