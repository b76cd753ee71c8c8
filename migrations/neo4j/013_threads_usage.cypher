// Thread memory and the LLM usage ledger move to Neo4j (store/neo4j/threads.ts, usage.ts), so API processes sharing
// a server store share threads and the ledger instead of each keeping its own. The uniqueness constraints are the
// records' keys within their bank (and back the lookups by them); a thread's message seqs are unique, as the
// embedded store's primary key makes them, so two writers can never take the same number.
CREATE CONSTRAINT thread_key IF NOT EXISTS FOR (t:Thread) REQUIRE (t.bankId, t.id) IS UNIQUE;
CREATE CONSTRAINT thread_message_key IF NOT EXISTS FOR (m:ThreadMessage) REQUIRE (m.bankId, m.id) IS UNIQUE;
CREATE CONSTRAINT thread_message_seq IF NOT EXISTS FOR (m:ThreadMessage) REQUIRE (m.bankId, m.threadId, m.seq) IS UNIQUE;
CREATE CONSTRAINT thread_item_key IF NOT EXISTS FOR (i:ThreadMemoryItem) REQUIRE (i.bankId, i.id) IS UNIQUE;
CREATE CONSTRAINT working_memory_key IF NOT EXISTS FOR (w:WorkingMemory) REQUIRE (w.bankId, w.key) IS UNIQUE;
CREATE CONSTRAINT thread_item_counter_bank IF NOT EXISTS FOR (c:ThreadItemCounter) REQUIRE c.bankId IS UNIQUE;
// Bank-scoped lookups: threads by resource, a thread's messages, a record's items in creation order, a thread's
// observations (watermarks), the bank's items in creation order (export), a bank's nodes (deletion).
CREATE INDEX thread_bank_resource IF NOT EXISTS FOR (t:Thread) ON (t.bankId, t.resourceId);
CREATE INDEX thread_bank IF NOT EXISTS FOR (t:Thread) ON (t.bankId);
CREATE INDEX thread_message_thread IF NOT EXISTS FOR (m:ThreadMessage) ON (m.bankId, m.threadId);
CREATE INDEX thread_message_bank IF NOT EXISTS FOR (m:ThreadMessage) ON (m.bankId);
CREATE INDEX thread_item_record IF NOT EXISTS FOR (i:ThreadMemoryItem) ON (i.bankId, i.recordId);
CREATE INDEX thread_item_thread IF NOT EXISTS FOR (i:ThreadMemoryItem) ON (i.bankId, i.threadId);
CREATE INDEX thread_item_order IF NOT EXISTS FOR (i:ThreadMemoryItem) ON (i.bankId, i.rid);
CREATE INDEX working_memory_bank IF NOT EXISTS FOR (w:WorkingMemory) ON (w.bankId);
// The ledger: one node per LLM call, read by bank and time range.
CREATE RANGE INDEX llm_usage_bank_time IF NOT EXISTS FOR (u:LlmUsage) ON (u.bankId, u.at);
