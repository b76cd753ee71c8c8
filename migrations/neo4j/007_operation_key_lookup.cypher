// Idempotency keys are found by the key alone (GET /v1/operations/{key}); their uniqueness is (bankId, key).
CREATE INDEX operation_key_key IF NOT EXISTS FOR (k:OperationKey) ON (k.key);
