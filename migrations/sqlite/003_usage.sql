-- LLM usage ledger: one row per LLM call (failed calls included), kept indefinitely for audit and cost
-- reports. No foreign key to banks: the record of what was spent outlives the bank it was spent for.

CREATE TABLE llm_usage (
  id             INTEGER PRIMARY KEY,
  at             TEXT NOT NULL,
  bank_id        TEXT,
  operation      TEXT NOT NULL,
  provider       TEXT NOT NULL,
  model          TEXT NOT NULL,
  input_tokens   INTEGER NOT NULL DEFAULT 0,
  output_tokens  INTEGER NOT NULL DEFAULT 0,
  cached_tokens  INTEGER NOT NULL DEFAULT 0,
  latency_ms     INTEGER NOT NULL DEFAULT 0,
  cost_usd       REAL NOT NULL DEFAULT 0,
  ok             INTEGER NOT NULL CHECK (ok IN (0, 1)),
  error          TEXT
);
CREATE INDEX llm_usage_by_bank_time ON llm_usage(bank_id, at);
