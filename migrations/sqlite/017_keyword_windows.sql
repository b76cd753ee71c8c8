-- Row lengths of the keyword tables in windows of 1024 rowids (rowid >> 10): per table and window, one blob of 1024
-- little-endian 32-bit lengths in tokens (0: no row of the table there). BM25 (src/store/sqlite/bm25.ts) reads a
-- window's lengths in one row instead of 1024 document sizes, and bounds what the rows of a window can score (each
-- term's best count for a length), so it skips the windows that cannot reach its best rows. Written by every write
-- that puts rows in (src/store/sqlite/keyword-tables.ts); a row leaving keeps its old length here, never read again.
-- NULL in *_windows: not written yet (the tables of a database from before this migration, written once from their
-- document sizes when the store opens); tables made from now on start at 1.
CREATE TABLE keyword_windows (
  n       INTEGER NOT NULL,
  source  TEXT NOT NULL,
  w       INTEGER NOT NULL,
  lengths BLOB NOT NULL,
  PRIMARY KEY (n, source, w)
) WITHOUT ROWID;
ALTER TABLE keyword_indexes ADD COLUMN fact_windows INTEGER;
ALTER TABLE keyword_indexes ADD COLUMN chunk_windows INTEGER;
