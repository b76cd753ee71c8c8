-- A fact's stance (a standing instruction or preference, read at retain) moves out of its metadata, where an item's
-- own metadata could set it, into a column of its own; facts stored before keep their metadata as it was. A fact's
-- context (what its keyword and semantic representations read beside its text) is new: facts stored before have
-- none, and their keyword entries, their text alone, stay right.
ALTER TABLE facts ADD COLUMN stance TEXT CHECK (stance IN ('instruction', 'preference'));
ALTER TABLE facts ADD COLUMN context TEXT;

UPDATE facts SET stance = json_extract(metadata, '$.stance')
 WHERE kind <> 'experience' AND json_extract(metadata, '$.stance') IN ('instruction', 'preference');

DROP INDEX facts_by_stance;
CREATE INDEX facts_by_stance ON facts (bank_id, stance) WHERE stance IS NOT NULL;

-- The keyword tables index a fact's text and its context (keyword-tables.ts): either changing indexes it again.
DROP TRIGGER facts_keywords_update;
CREATE TRIGGER facts_keywords_update AFTER UPDATE OF text, context ON facts BEGIN
  INSERT INTO keyword_changes (bank_id, source, rid, stale) VALUES (old.bank_id, 'fact', old.rid, 1) ON CONFLICT DO UPDATE SET stale = 1;
END;
