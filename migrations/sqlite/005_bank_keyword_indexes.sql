-- Keyword indexes of their own per bank, so BM25's statistics (document count, average length, how many documents
-- hold a term) are the bank's alone: what one bank holds never changes another bank's keyword ranking or scores.
-- Each bank gets a pair of FTS5 tables, keywords_facts_<n> and keywords_chunks_<n>, named by the number `n` this
-- table gives it (never by the bank's id). The tables are created on a bank's first write and dropped with the bank
-- (src/store/sqlite/keyword-tables.ts).
CREATE TABLE keyword_indexes (
  n        INTEGER PRIMARY KEY AUTOINCREMENT,
  bank_id  TEXT NOT NULL UNIQUE
);

-- Triggers cannot name a per-bank table, so they record which fact and chunk rows changed (every path, foreign-key
-- cascades included); the store applies the record to the bank's tables before its write transaction commits
-- (and, should one be left, before the next search). `stale`: the row may be in the index and must leave it first.
CREATE TABLE keyword_changes (
  bank_id  TEXT NOT NULL,
  source   TEXT NOT NULL CHECK (source IN ('fact', 'chunk')),
  rid      INTEGER NOT NULL,
  stale    INTEGER NOT NULL,
  PRIMARY KEY (bank_id, source, rid)
) WITHOUT ROWID;

DROP TRIGGER facts_fts_insert;
DROP TRIGGER facts_fts_delete;
DROP TRIGGER facts_fts_update;
DROP TRIGGER chunks_fts_insert;
DROP TRIGGER chunks_fts_delete;
DROP TABLE facts_fts;
DROP TABLE chunks_fts;

CREATE TRIGGER facts_keywords_insert AFTER INSERT ON facts BEGIN
  INSERT INTO keyword_changes (bank_id, source, rid, stale) VALUES (new.bank_id, 'fact', new.rid, 0) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER facts_keywords_delete AFTER DELETE ON facts BEGIN
  INSERT INTO keyword_changes (bank_id, source, rid, stale) VALUES (old.bank_id, 'fact', old.rid, 1) ON CONFLICT DO UPDATE SET stale = 1;
END;
CREATE TRIGGER facts_keywords_update AFTER UPDATE OF text ON facts BEGIN
  INSERT INTO keyword_changes (bank_id, source, rid, stale) VALUES (old.bank_id, 'fact', old.rid, 1) ON CONFLICT DO UPDATE SET stale = 1;
END;
CREATE TRIGGER chunks_keywords_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO keyword_changes (bank_id, source, rid, stale) VALUES (new.bank_id, 'chunk', new.rid, 0) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER chunks_keywords_delete AFTER DELETE ON chunks BEGIN
  INSERT INTO keyword_changes (bank_id, source, rid, stale) VALUES (old.bank_id, 'chunk', old.rid, 1) ON CONFLICT DO UPDATE SET stale = 1;
END;
CREATE TRIGGER chunks_keywords_update AFTER UPDATE OF text, speaker ON chunks BEGIN
  INSERT INTO keyword_changes (bank_id, source, rid, stale) VALUES (old.bank_id, 'chunk', old.rid, 1) ON CONFLICT DO UPDATE SET stale = 1;
END;

-- Existing rows are indexed again, bank by bank, when the store opens (the per-bank tables are made there).
INSERT INTO keyword_changes (bank_id, source, rid, stale) SELECT bank_id, 'fact', rid, 0 FROM facts;
INSERT INTO keyword_changes (bank_id, source, rid, stale) SELECT bank_id, 'chunk', rid, 0 FROM chunks;
