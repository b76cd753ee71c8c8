-- The graph change log: which facts' mentions and links each graph version of a bank changed, written in the
-- transaction that bumps bank_versions.graph_version. A process whose cached entity graph is behind (another process
-- or connection wrote) re-reads those facts instead of reloading the bank's whole graph. fact_ids is a JSON array of
-- fact ids, or NULL when anything may have changed (the cached graph is then reloaded). Only the newest versions of
-- each bank are kept. A rowid table: fact_ids of a large write runs to kilobytes, too wide for a WITHOUT ROWID row.
CREATE TABLE graph_changes (
  bank_id   TEXT NOT NULL,
  version   INTEGER NOT NULL,
  fact_ids  TEXT,
  PRIMARY KEY (bank_id, version)
);
