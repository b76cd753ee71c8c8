// A reader thread of the embedded store: its own connection to the database file (WAL lets it read beside the
// writer), for long read-only queries that would otherwise hold up the main thread.
import Database from 'better-sqlite3';
import { bm25Passing, type Bm25Passing } from './bm25.ts';
import { tuneForReads } from './database.ts';
import { prepared } from './statements.ts';

/** A query's rows, a keyword table's best rows by BM25 that a check query passes (bm25.ts, with this thread's memory of
 * row lengths), or a checkpoint of the write-ahead log (its result row). */
export type ReadTask = { file: string } & ({ sql: string; params: unknown[] } | { passing: Bm25Passing } | { checkpoint: true });

const connections = new Map<string, Database.Database>();

function connection(file: string): Database.Database {
  let db = connections.get(file);
  if (!db) {
    db = new Database(file, { fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    db.pragma('query_only = 1');
    tuneForReads(db, { mapped: false }); // it reads what the main connection and the worker write
    connections.set(file, db);
  }
  return db;
}

export default function read(task: ReadTask): unknown[] {
  const db = connection(task.file);
  // A passive checkpoint copies committed pages into the database file without waiting for (or blocking) anyone.
  if ('checkpoint' in task) return db.pragma('wal_checkpoint(PASSIVE)') as unknown[];
  if ('passing' in task) return bm25Passing(db, task.passing);
  return prepared(db, task.sql).all(...task.params);
}
