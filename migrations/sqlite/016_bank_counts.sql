-- Each bank's count of active facts (what a listing without filters counts) and of stored vectors, kept by triggers
-- on every write path (foreign-key cascades included), so a read needs one row instead of counting a large bank's
-- rows: recall's hub share reads the first, the vector index checks its snapshot against the second (each a scan of
-- a million index entries, seconds when the pages are cold). src/store/sqlite/counts.ts reads them.
CREATE TABLE bank_counts (
  bank_id       TEXT PRIMARY KEY,
  active_facts  INTEGER NOT NULL DEFAULT 0,
  vectors       INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TRIGGER facts_counted_insert AFTER INSERT ON facts WHEN new.status = 'active' BEGIN
  INSERT INTO bank_counts (bank_id, active_facts) VALUES (new.bank_id, 1)
    ON CONFLICT (bank_id) DO UPDATE SET active_facts = active_facts + 1;
END;
CREATE TRIGGER facts_counted_delete AFTER DELETE ON facts WHEN old.status = 'active' BEGIN
  UPDATE bank_counts SET active_facts = active_facts - 1 WHERE bank_id = old.bank_id;
END;
-- A fact is superseded, or current again (its superseding fact deleted). Facts never move between banks.
CREATE TRIGGER facts_counted_status AFTER UPDATE OF status ON facts
  WHEN (old.status = 'active') <> (new.status = 'active') BEGIN
  INSERT INTO bank_counts (bank_id, active_facts) VALUES (new.bank_id, CASE WHEN new.status = 'active' THEN 1 ELSE -1 END)
    ON CONFLICT (bank_id) DO UPDATE SET active_facts = active_facts + excluded.active_facts;
END;
CREATE TRIGGER fact_vectors_counted_insert AFTER INSERT ON fact_vectors BEGIN
  INSERT INTO bank_counts (bank_id, vectors) VALUES (new.bank_id, 1)
    ON CONFLICT (bank_id) DO UPDATE SET vectors = vectors + 1;
END;
CREATE TRIGGER fact_vectors_counted_delete AFTER DELETE ON fact_vectors BEGIN
  UPDATE bank_counts SET vectors = vectors - 1 WHERE bank_id = old.bank_id;
END;
CREATE TRIGGER banks_counted_delete AFTER DELETE ON banks BEGIN
  DELETE FROM bank_counts WHERE bank_id = old.id;
END;

INSERT INTO bank_counts (bank_id, active_facts, vectors)
  SELECT b.id,
    (SELECT count(*) FROM facts f WHERE f.bank_id = b.id AND f.status = 'active'),
    (SELECT count(*) FROM fact_vectors v WHERE v.bank_id = b.id)
  FROM banks b;
