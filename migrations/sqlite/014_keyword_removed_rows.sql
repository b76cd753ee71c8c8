-- Which rows each write took out of a bank's fact or chunk keyword table (deleted, or re-indexed with new text under
-- the same rowid), under the table's removals count after that write (keyword_indexes.fact_removals/chunk_removals,
-- migration 006), written in the write's transaction. A connection that remembers the table's row lengths as of an
-- older count (src/store/sqlite/bm25.ts) forgets just these rows instead of every length it knows. Only the latest
-- rows are kept, whole writes at a time (src/store/sqlite/keyword-tables.ts); an older count than the log reaches
-- forgets all.
CREATE TABLE keyword_removed_rows (
  n        INTEGER NOT NULL,
  source   TEXT NOT NULL CHECK (source IN ('fact', 'chunk')),
  removal  INTEGER NOT NULL,
  rid      INTEGER NOT NULL,
  PRIMARY KEY (n, source, removal, rid)
) WITHOUT ROWID;
