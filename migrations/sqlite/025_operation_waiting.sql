-- What an operation waits for while it cannot go on (a retain: its bank's write lease, held by an earlier retain), so
-- an operation queued behind another does not look stuck at 0 of N. Null while it is not waiting.
ALTER TABLE operations ADD COLUMN progress_waiting TEXT;
