// Opens the embedded SQLite database (WAL, foreign keys, busy timeout) and applies the versioned,
// forward-only migrations in migrations/sqlite, each once, each in its own transaction, then refreshes planner statistics.
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Db = Database.Database;

export const SQLITE_MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../migrations/sqlite');

/** Reads go through a 64 MB page cache (the default 2 MB holds a few thousand facts) and, unless `mapped` is false, a
 * memory map: recall's random lookups of facts, chunks and FTS doclists in a large bank then rarely cost a read call.
 * For every connection, the reader threads' too. A connection that mostly reads what another one writes (a reader
 * thread) maps nothing: at its first read after another connection's commit SQLite drops its page cache and unmaps
 * the file whole, and unmapping and faulting the pages back in costs several times what reading them afresh does
 * (tens of milliseconds against a few for recall's lookups in a 100k-fact bank, right after a consolidation batch). */
export function tuneForReads(db: Db, { mapped = true }: { mapped?: boolean } = {}): void {
  db.pragma('cache_size = -65536');
  db.pragma(`mmap_size = ${mapped ? 1073741824 : 0}`);
}

export function openDatabase(file: string, migrationsDir = SQLITE_MIGRATIONS_DIR): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable against a killed process in WAL mode (only power loss can drop the last commits).
  db.pragma('synchronous = NORMAL');
  // Statement journals in memory: every insert into a table with triggers and foreign keys (facts, vectors, links)
  // saves the pages it touches to one, and on disk that came to tens of kilobytes written per fact.
  db.pragma('temp_store = MEMORY');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 10000');
  tuneForReads(db);
  migrate(db, migrationsDir);
  // The planner needs statistics to prefer id lookups over scanning a bank: sample (bounded cost) and let
  // `optimize` analyze tables never analyzed or grown a lot since; SqliteStore re-runs it after large writes.
  db.pragma('analysis_limit = 1000');
  db.pragma('optimize = 0x10002');
  return db;
}

/** Applies every migration file not applied yet, in file-name order. Returns the names applied now. */
export function migrate(db: Db, dir: string): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const done = new Set((db.prepare('SELECT name FROM schema_migrations').all() as Array<{ name: string }>).map((r) => r.name));
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    const sql = readFileSync(join(dir, file), 'utf8');
    // Two processes opening one new data directory at once both see the migration missing: the write lock of
    // the immediate transaction lets one apply it, and the other, checking again under the lock, skips it.
    const ran = db
      .transaction(() => {
        if (db.prepare('SELECT 1 FROM schema_migrations WHERE name = ?').get(file)) return false;
        db.exec(sql);
        db.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)').run(file, new Date().toISOString());
        return true;
      })
      .immediate();
    if (ran) applied.push(file);
  }
  return applied;
}
