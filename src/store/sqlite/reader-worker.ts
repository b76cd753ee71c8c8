// A reader thread of the embedded store: its own connection to the database file (WAL lets it read beside the
// writer), for long read-only queries that would otherwise hold up the main thread.
import Database from 'better-sqlite3';
import { prepared } from './statements.ts';

export interface ReadTask {
  file: string;
  sql: string;
  params: unknown[];
}

const connections = new Map<string, Database.Database>();

function connection(file: string): Database.Database {
  let db = connections.get(file);
  if (!db) {
    db = new Database(file, { fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    db.pragma('query_only = 1');
    db.pragma('cache_size = -65536');
    db.pragma('mmap_size = 1073741824');
    connections.set(file, db);
  }
  return db;
}

export default function read(task: ReadTask): unknown[] {
  return prepared(connection(task.file), task.sql).all(...task.params);
}
