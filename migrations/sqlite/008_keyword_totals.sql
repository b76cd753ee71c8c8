-- Exact BM25 statistics per keyword table: how many rows it holds and how many tokens they hold in all, per bank and
-- source. FTS5 keeps these in a table's averages record, but for a contentless_delete table it never takes a deleted
-- row out of them, so they grow with every delete and re-indexed row; the store keeps its own, adjusted by the rows
-- each write takes out and puts in (src/store/sqlite/keyword-tables.ts), and BM25 reads them (bm25.ts).
-- NULL: not counted yet. The tables of a database from before this migration are counted once from their document
-- sizes when the store opens; tables made from now on start at 0.
ALTER TABLE keyword_indexes ADD COLUMN fact_rows INTEGER;
ALTER TABLE keyword_indexes ADD COLUMN fact_tokens INTEGER;
ALTER TABLE keyword_indexes ADD COLUMN chunk_rows INTEGER;
ALTER TABLE keyword_indexes ADD COLUMN chunk_tokens INTEGER;
