// Unique ids and the bank-scoped keys of the server store's graph (Neo4j 5, Community Edition features only).
// Each statement runs on its own (schema commands cannot share a transaction) and is idempotent (IF NOT EXISTS),
// so a start interrupted half-way simply applies the rest next time.
CREATE CONSTRAINT migration_name IF NOT EXISTS FOR (m:Migration) REQUIRE m.name IS UNIQUE;
CREATE CONSTRAINT bank_id IF NOT EXISTS FOR (b:Bank) REQUIRE b.id IS UNIQUE;
CREATE CONSTRAINT document_key IF NOT EXISTS FOR (d:Document) REQUIRE (d.bankId, d.id) IS UNIQUE;
CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (k:EntityKey) REQUIRE (k.bankId, k.key) IS UNIQUE;
CREATE CONSTRAINT revision_id IF NOT EXISTS FOR (r:Revision) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT operation_id IF NOT EXISTS FOR (o:Operation) REQUIRE o.id IS UNIQUE;
CREATE CONSTRAINT operation_key IF NOT EXISTS FOR (k:OperationKey) REQUIRE (k.bankId, k.key) IS UNIQUE;
CREATE CONSTRAINT tombstone_id IF NOT EXISTS FOR (t:Tombstone) REQUIRE t.id IS UNIQUE;
