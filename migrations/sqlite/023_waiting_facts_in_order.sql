-- The consolidation queue read in the order facts were written. facts_queue held the waiting facts by kind, so a
-- claim of the 16 oldest read and sorted every waiting fact of the bank (half a second with a backlog of a million,
-- a claim per batch). Keyed by bank and dead flag, a partial index lists them in rowid order: a claim reads its 16,
-- and dead letters are counted and listed from it too.
DROP INDEX IF EXISTS facts_queue;
CREATE INDEX facts_waiting ON facts(bank_id, dead) WHERE consolidated_at IS NULL AND kind != 'observation';
