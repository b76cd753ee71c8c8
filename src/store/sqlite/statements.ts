// Prepared statements of the embedded store, compiled once per connection and reused: better-sqlite3 compiles
// the SQL on every `prepare`, which costs more than running a small insert or lookup.
import type Database from 'better-sqlite3';
import type { Db } from './database.ts';

export type Statement = Database.Statement<unknown[]>;

/** Distinct SQL texts kept per connection (IN lists of many lengths make new texts); past it the cache restarts. */
const MAX_STATEMENTS = 1000;

const caches = new WeakMap<Db, Map<string, Statement>>();

/** The connection's prepared statement for this SQL text, prepared on first use. A statement that a caller put in
 * raw or pluck mode stays in it: give each mode its own SQL text. */
export function prepared(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) {
    if (cache.size >= MAX_STATEMENTS) cache.clear();
    cache.set(sql, (statement = db.prepare(sql)));
  }
  return statement;
}
