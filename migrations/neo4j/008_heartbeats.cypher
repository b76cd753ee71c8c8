// Heartbeats of the processes holding consolidation claims and running operations: one node per holder.
CREATE CONSTRAINT heartbeat_id IF NOT EXISTS FOR (h:Heartbeat) REQUIRE h.id IS UNIQUE;
