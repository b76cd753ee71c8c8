-- Thread messages: seq counts per thread (1, 2, 3 ... within each thread) instead of across every thread of the
-- database. Existing messages are renumbered within their thread in their stored order, and the seq ranges that
-- observations cover are mapped onto the new numbers (a bound becomes the count of its thread's messages up to it,
-- so ranges and watermarks keep covering exactly the same messages).
UPDATE thread_memory
SET from_seq = (SELECT count(*) FROM thread_messages m
                WHERE m.bank_id = thread_memory.bank_id AND m.thread_id = thread_memory.thread_id AND m.seq < thread_memory.from_seq) + 1
WHERE from_seq IS NOT NULL AND thread_id IS NOT NULL;
UPDATE thread_memory
SET to_seq = (SELECT count(*) FROM thread_messages m
              WHERE m.bank_id = thread_memory.bank_id AND m.thread_id = thread_memory.thread_id AND m.seq <= thread_memory.to_seq)
WHERE to_seq IS NOT NULL AND thread_id IS NOT NULL;

CREATE TABLE thread_messages_per_thread (
  bank_id     TEXT NOT NULL,
  thread_id   TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  id          TEXT NOT NULL UNIQUE,
  role        TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
  name        TEXT,
  content     TEXT NOT NULL,
  tool_calls  TEXT,
  timestamp   TEXT NOT NULL,
  tokens      INTEGER NOT NULL,
  created_at  TEXT NOT NULL,
  bridged_at  TEXT,
  PRIMARY KEY (bank_id, thread_id, seq),
  FOREIGN KEY (bank_id, thread_id) REFERENCES threads(bank_id, id) ON DELETE CASCADE
);
INSERT INTO thread_messages_per_thread (bank_id, thread_id, seq, id, role, name, content, tool_calls, timestamp, tokens, created_at, bridged_at)
SELECT bank_id, thread_id, row_number() OVER (PARTITION BY bank_id, thread_id ORDER BY seq), id, role, name, content, tool_calls, timestamp,
       tokens, created_at, bridged_at
FROM thread_messages;
DROP TABLE thread_messages;
ALTER TABLE thread_messages_per_thread RENAME TO thread_messages;
