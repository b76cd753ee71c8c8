-- Banks whose delete has begun: a large bank is deleted a batch of rows per transaction (each transaction holds the
-- process's event loop), hidden from the moment its delete begins; a delete a crash interrupted is finished when the
-- store opens again.
CREATE TABLE bank_purges (
  bank_id     TEXT PRIMARY KEY,
  reason      TEXT NOT NULL,
  started_at  TEXT NOT NULL
);
