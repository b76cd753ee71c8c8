-- A bank's operations newest first, a page at a time (GET /v1/banks/{bank}/operations): walked backwards from the
-- newest end of this index, so a bank that ran thousands of retains is neither sorted nor scanned.
CREATE INDEX operations_by_bank ON operations(bank_id, created_at, id);
