-- Sessions: a chunk's session is its item's `session`, else its document (an item retained without a documentId
-- belongs to no session); facts carry their chunk's. Ordinals are computed from these at query time (the earliest
-- timestamp per session, through chunks_by_session), so they stay right whatever order documents are retained,
-- replaced or deleted in.
ALTER TABLE chunks ADD COLUMN session TEXT;
ALTER TABLE facts ADD COLUMN session TEXT;

-- Chunks stored before: their document is their session, unless its id was derived for a standalone item
-- (`doc_` and 24 hex digits) or it holds a thread's compressed memory (not a conversation).
UPDATE chunks SET session = document_id
 WHERE NOT (length(document_id) = 28 AND document_id GLOB 'doc_*' AND substr(document_id, 5) NOT GLOB '*[^0-9a-f]*')
   AND document_id NOT GLOB 'thread-memory:*';
UPDATE facts SET session = (SELECT c.session FROM chunks c WHERE c.id = facts.chunk_id) WHERE chunk_id IS NOT NULL;

-- Bumped by every write that adds or removes chunks: the cached session list of a bank is good until it moves.
ALTER TABLE bank_versions ADD COLUMN session_version INTEGER NOT NULL DEFAULT 0;

CREATE INDEX chunks_by_session ON chunks(bank_id, session, timestamp) WHERE session IS NOT NULL;
CREATE INDEX facts_by_session ON facts(bank_id, session) WHERE session IS NOT NULL;
