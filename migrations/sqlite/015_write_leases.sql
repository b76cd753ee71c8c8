-- Each bank's write lease: the one holder (a retain, in whichever process) that may write retained items into the
-- bank until `lease_until`. Entity resolution reads what the previous retain wrote, so two processes retaining into
-- one bank at once would resolve one name to two entities. The holder's host, pid and process start time let a
-- process on the same host see at once that a holder died (src/liveness.ts) instead of waiting out its lease.
CREATE TABLE bank_write_leases (
  bank_id     TEXT PRIMARY KEY,
  holder      TEXT NOT NULL,
  host        TEXT NOT NULL,
  pid         INTEGER NOT NULL,
  started_at  TEXT NOT NULL,
  lease_until TEXT NOT NULL
) WITHOUT ROWID;
