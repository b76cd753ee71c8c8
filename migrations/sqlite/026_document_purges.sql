-- Documents whose delete has begun: a large document is deleted a batch of facts per transaction (each transaction
-- holds the process's event loop), so a delete interrupted by a crash is finished when the store opens again, and no
-- retain writes the document meanwhile.
CREATE TABLE document_purges (
  bank_id      TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  document_id  TEXT NOT NULL,
  reason       TEXT NOT NULL,
  started_at   TEXT NOT NULL,
  PRIMARY KEY (bank_id, document_id)
);
