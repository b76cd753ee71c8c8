// Sessions: chunks and facts carry their session (the item's `session`, else its document); ordinals are computed
// at query time from the chunks' timestamps per session, and the temporal arm reads the facts of named sessions.
CREATE INDEX chunk_bank_session IF NOT EXISTS FOR (c:Chunk) ON (c.bankId, c.session);
CREATE INDEX fact_bank_session IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.session);
