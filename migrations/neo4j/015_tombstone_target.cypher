// A deleted fact, observation or document asked for by id is answered with its tombstone: found by target.
CREATE RANGE INDEX tombstone_target IF NOT EXISTS FOR (t:Tombstone) ON (t.bankId, t.targetId);
