-- Counts, per bank and source, the writes that took rows out of the bank's fact or chunk keyword table (a row
-- deleted, or re-indexed because its text changed). Readers that keep a table's row lengths in memory
-- (src/store/sqlite/bm25.ts) keep them while the count stands still: rows only added leave every known length true.
ALTER TABLE keyword_indexes ADD COLUMN fact_removals INTEGER NOT NULL DEFAULT 0;
ALTER TABLE keyword_indexes ADD COLUMN chunk_removals INTEGER NOT NULL DEFAULT 0;
