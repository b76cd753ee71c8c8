-- Thread memory: threads, their messages (stored before any processing), memory items (observations and
-- reflections through running, buffered, active and archived states) and working-memory documents.

CREATE TABLE threads (
  bank_id      TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  id           TEXT NOT NULL,
  resource_id  TEXT,
  settings     TEXT NOT NULL DEFAULT '{}',
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  PRIMARY KEY (bank_id, id)
);
CREATE INDEX threads_by_resource ON threads(bank_id, resource_id);

CREATE TABLE thread_messages (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT NOT NULL UNIQUE,
  bank_id     TEXT NOT NULL,
  thread_id   TEXT NOT NULL,
  role        TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
  name        TEXT,
  content     TEXT NOT NULL,
  tool_calls  TEXT,
  timestamp   TEXT NOT NULL,
  tokens      INTEGER NOT NULL,
  created_at  TEXT NOT NULL,
  bridged_at  TEXT,
  FOREIGN KEY (bank_id, thread_id) REFERENCES threads(bank_id, id) ON DELETE CASCADE
);
CREATE INDEX thread_messages_by_thread ON thread_messages(bank_id, thread_id, seq);

CREATE TABLE thread_memory (
  rid                 INTEGER PRIMARY KEY AUTOINCREMENT,
  id                  TEXT NOT NULL UNIQUE,
  bank_id             TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  record_id           TEXT NOT NULL,
  thread_id           TEXT,
  kind                TEXT NOT NULL CHECK (kind IN ('observation', 'reflection')),
  generation          INTEGER NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('running', 'buffered', 'active', 'archived')),
  text                TEXT NOT NULL,
  tokens              INTEGER NOT NULL,
  from_seq            INTEGER,
  to_seq              INTEGER,
  message_count       INTEGER NOT NULL DEFAULT 0,
  input_tokens        INTEGER NOT NULL DEFAULT 0,
  covers              TEXT NOT NULL DEFAULT '[]',
  current_task        TEXT,
  suggested_response  TEXT,
  first_at            TEXT,
  last_at             TEXT,
  created_at          TEXT NOT NULL,
  activated_at        TEXT,
  archived_at         TEXT,
  bridged_at          TEXT
);
CREATE INDEX thread_memory_by_record ON thread_memory(bank_id, record_id, status, kind);
CREATE INDEX thread_memory_by_thread ON thread_memory(bank_id, thread_id, kind, to_seq);

CREATE TABLE thread_working_memory (
  bank_id     TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  key         TEXT NOT NULL,
  content     TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (bank_id, key)
);
