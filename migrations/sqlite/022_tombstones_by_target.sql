-- A deleted fact, observation or document asked for by id is answered with its tombstone (when and why it was
-- deleted) instead of a bare "does not exist": its newest tombstone is found by target without a scan of the bank's.
CREATE INDEX tombstones_by_target ON tombstones(bank_id, target_id, at);
