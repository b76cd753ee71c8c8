-- Idempotency keys remember the hash of the payload they were first used with (a reuse with another payload is
-- refused), and can be looked up by the key alone (GET /v1/operations/{key}).
ALTER TABLE operation_keys ADD COLUMN payload_hash TEXT;
CREATE INDEX operation_keys_by_key ON operation_keys(key);
