// A bank's operations newest first, a page at a time (GET /v1/banks/{bank}/operations), read from this index in
// order instead of sorting every operation the bank ever ran.
CREATE RANGE INDEX operation_bank_created IF NOT EXISTS FOR (o:Operation) ON (o.bankId, o.createdAt);
