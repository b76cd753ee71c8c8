-- Core schema of the embedded store: banks, documents, chunks, facts (observations included), entities,
-- links, vectors, keyword indexes (FTS5, kept in sync by triggers), evidence, history, operations, tombstones.

CREATE TABLE banks (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  mission     TEXT NOT NULL DEFAULT '',
  config      TEXT NOT NULL DEFAULT '{}',
  embedder    TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

CREATE TABLE documents (
  bank_id       TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  id            TEXT NOT NULL,
  content_hash  TEXT NOT NULL,
  metadata      TEXT NOT NULL DEFAULT '{}',
  tags          TEXT NOT NULL DEFAULT '[]',
  created_at    TEXT NOT NULL,
  updated_at    TEXT NOT NULL,
  PRIMARY KEY (bank_id, id)
);

CREATE TABLE chunks (
  rid           INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  bank_id       TEXT NOT NULL,
  document_id   TEXT NOT NULL,
  idx           INTEGER NOT NULL,
  item_id       TEXT NOT NULL,
  text          TEXT NOT NULL,
  content_hash  TEXT NOT NULL,
  speaker       TEXT,
  timestamp     TEXT,
  context       TEXT,
  metadata      TEXT NOT NULL DEFAULT '{}',
  tags          TEXT NOT NULL DEFAULT '[]',
  FOREIGN KEY (bank_id, document_id) REFERENCES documents(bank_id, id) ON DELETE CASCADE
);
CREATE INDEX chunks_by_document ON chunks(bank_id, document_id, idx);

CREATE TABLE facts (
  rid             INTEGER PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  bank_id         TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  kind            TEXT NOT NULL CHECK (kind IN ('world', 'experience', 'observation')),
  text            TEXT NOT NULL,
  occurred_start  TEXT,
  occurred_end    TEXT,
  mentioned_at    TEXT NOT NULL,
  document_id     TEXT,
  chunk_id        TEXT REFERENCES chunks(id) ON DELETE CASCADE,
  item_id         TEXT,
  span_start      INTEGER,
  span_end        INTEGER,
  speaker         TEXT,
  metadata        TEXT NOT NULL DEFAULT '{}',
  tags            TEXT NOT NULL DEFAULT '[]',
  status          TEXT NOT NULL DEFAULT 'active',
  valid_from      TEXT,
  valid_to        TEXT,
  superseded_by   TEXT,
  superseded_at   TEXT,
  consolidated_at TEXT,
  claim_worker    TEXT,
  claim_until     TEXT,
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  next_attempt_at TEXT,
  dead            INTEGER NOT NULL DEFAULT 0,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX facts_by_bank_kind ON facts(bank_id, kind, status);
CREATE INDEX facts_by_chunk ON facts(chunk_id);
CREATE INDEX facts_by_document ON facts(bank_id, document_id);
CREATE INDEX facts_by_occurred ON facts(bank_id, occurred_start);
CREATE INDEX facts_by_mentioned ON facts(bank_id, mentioned_at);
CREATE INDEX facts_queue ON facts(bank_id, consolidated_at, dead, kind) WHERE consolidated_at IS NULL;

CREATE TABLE entities (
  id            TEXT PRIMARY KEY,
  bank_id       TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  name          TEXT NOT NULL,
  aliases       TEXT NOT NULL DEFAULT '[]',
  type          TEXT,
  mention_count INTEGER NOT NULL DEFAULT 0,
  first_seen    TEXT NOT NULL,
  last_seen     TEXT NOT NULL
);
CREATE INDEX entities_by_bank ON entities(bank_id, mention_count DESC);

-- Normalized names and aliases -> entity, for resolution and for the graph arm.
CREATE TABLE entity_keys (
  bank_id    TEXT NOT NULL,
  key        TEXT NOT NULL,
  entity_id  TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  PRIMARY KEY (bank_id, key)
);
CREATE INDEX entity_keys_by_entity ON entity_keys(entity_id);

CREATE TABLE fact_entities (
  fact_id    TEXT NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
  entity_id  TEXT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  bank_id    TEXT NOT NULL,
  PRIMARY KEY (fact_id, entity_id)
);
CREATE INDEX fact_entities_by_entity ON fact_entities(entity_id);

CREATE TABLE fact_links (
  bank_id  TEXT NOT NULL,
  from_id  TEXT NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
  to_id    TEXT NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
  type     TEXT NOT NULL CHECK (type IN ('temporal', 'semantic', 'causal', 'entity')),
  weight   REAL NOT NULL,
  PRIMARY KEY (from_id, to_id, type)
);
CREATE INDEX fact_links_to ON fact_links(to_id);

-- Vectors, one per fact; vector_changes orders every change so in-memory indexes (in any process) can catch up incrementally.
CREATE TABLE fact_vectors (
  fact_rid  INTEGER PRIMARY KEY REFERENCES facts(rid) ON DELETE CASCADE,
  bank_id   TEXT NOT NULL,
  vector    BLOB NOT NULL
);
CREATE INDEX fact_vectors_by_bank ON fact_vectors(bank_id);

CREATE TABLE vector_changes (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  bank_id     TEXT NOT NULL,
  fact_rid    INTEGER NOT NULL,
  op          TEXT NOT NULL CHECK (op IN ('put', 'delete'))
);
CREATE INDEX vector_changes_by_bank ON vector_changes(bank_id, seq);

CREATE TRIGGER fact_vectors_inserted AFTER INSERT ON fact_vectors BEGIN
  INSERT INTO vector_changes (bank_id, fact_rid, op) VALUES (new.bank_id, new.fact_rid, 'put');
END;
CREATE TRIGGER fact_vectors_updated AFTER UPDATE ON fact_vectors BEGIN
  INSERT INTO vector_changes (bank_id, fact_rid, op) VALUES (new.bank_id, new.fact_rid, 'put');
END;
CREATE TRIGGER fact_vectors_deleted AFTER DELETE ON fact_vectors BEGIN
  INSERT INTO vector_changes (bank_id, fact_rid, op) VALUES (old.bank_id, old.fact_rid, 'delete');
END;

-- BM25 keyword indexes (porter stemming). Contentless-delete tables keyed by the owning row's rowid.
CREATE VIRTUAL TABLE facts_fts USING fts5(text, content='', contentless_delete=1, tokenize='porter unicode61');
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts (rowid, text) VALUES (new.rid, new.text);
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
  DELETE FROM facts_fts WHERE rowid = old.rid;
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF text ON facts BEGIN
  DELETE FROM facts_fts WHERE rowid = old.rid;
  INSERT INTO facts_fts (rowid, text) VALUES (new.rid, new.text);
END;

CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='', contentless_delete=1, tokenize='porter unicode61');
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts (rowid, text) VALUES (new.rid, coalesce(new.speaker || ': ', '') || new.text);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rid;
END;

CREATE TABLE evidence (
  observation_id  TEXT NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
  fact_id         TEXT NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
  bank_id         TEXT NOT NULL,
  role            TEXT NOT NULL CHECK (role IN ('supports', 'contradicts')),
  created_at      TEXT NOT NULL,
  PRIMARY KEY (observation_id, fact_id)
);
CREATE INDEX evidence_by_fact ON evidence(fact_id);

CREATE TABLE observation_revisions (
  id              TEXT PRIMARY KEY,
  bank_id         TEXT NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
  observation_id  TEXT NOT NULL,
  old_text        TEXT,
  new_text        TEXT NOT NULL,
  fact_ids        TEXT NOT NULL DEFAULT '[]',
  reason          TEXT NOT NULL,
  at              TEXT NOT NULL
);
CREATE INDEX observation_revisions_by_observation ON observation_revisions(observation_id, at);

CREATE TABLE operations (
  id              TEXT PRIMARY KEY,
  bank_id         TEXT NOT NULL,
  kind            TEXT NOT NULL,
  status          TEXT NOT NULL,
  progress_done   INTEGER NOT NULL DEFAULT 0,
  progress_total  INTEGER NOT NULL DEFAULT 0,
  input           TEXT,
  result          TEXT,
  error           TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX operations_unfinished ON operations(status) WHERE status IN ('queued', 'running');

CREATE TABLE operation_keys (
  bank_id       TEXT NOT NULL,
  key           TEXT NOT NULL,
  operation_id  TEXT NOT NULL,
  PRIMARY KEY (bank_id, key)
);

-- What was deleted, when and why; never the deleted content.
CREATE TABLE tombstones (
  id         TEXT PRIMARY KEY,
  bank_id    TEXT NOT NULL,
  kind       TEXT NOT NULL,
  target_id  TEXT NOT NULL,
  reason     TEXT NOT NULL,
  at         TEXT NOT NULL
);
CREATE INDEX tombstones_by_bank ON tombstones(bank_id, at);

-- A per-bank counter bumped by every write that changes the entity graph, so cached graphs know when to reload.
CREATE TABLE bank_versions (
  bank_id        TEXT PRIMARY KEY REFERENCES banks(id) ON DELETE CASCADE,
  graph_version  INTEGER NOT NULL DEFAULT 0
);
