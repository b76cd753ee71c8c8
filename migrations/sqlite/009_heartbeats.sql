-- Liveness of the processes that hold work: a consolidation claim or a running operation whose holder stopped
-- beating is taken over at once instead of waiting out the lease.
CREATE TABLE heartbeats (
  id           TEXT PRIMARY KEY,
  role         TEXT NOT NULL,
  host         TEXT NOT NULL,
  pid          INTEGER NOT NULL,
  started_at   TEXT NOT NULL,
  beat_at      TEXT NOT NULL,
  alive_until  TEXT NOT NULL
);

ALTER TABLE operations ADD COLUMN owner TEXT;

-- The queue's claims by holder (status, release of a dead holder's claims).
CREATE INDEX facts_claimed ON facts(claim_worker) WHERE claim_worker IS NOT NULL;
