-- A retain's progress within its items: the chunks of new text written and to write, so one long item shows
-- progress as it goes (NULL for operations of other kinds, and for those recorded before).
ALTER TABLE operations ADD COLUMN progress_chunks_done INTEGER;
ALTER TABLE operations ADD COLUMN progress_chunks_total INTEGER;
