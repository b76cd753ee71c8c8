// A fact's stance (a standing instruction or preference, read at retain) is a property of its own, read for every
// recall; facts stored before get theirs from their metadata (code migration 012).
CREATE INDEX fact_bank_stance IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.stance);
