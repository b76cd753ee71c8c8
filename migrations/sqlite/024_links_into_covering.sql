-- A fact's strongest incoming links read from the index alone: recall's graph arm reads up to a hundred per seed, and
-- each one's table row (for its source fact and bank) was a page read of its own. The same leading columns as the
-- index it replaces, so every lookup that one served, this one serves. About 40 bytes more per link.
CREATE INDEX fact_links_into_covering ON fact_links(to_id, type, weight, from_id, bank_id);
DROP INDEX IF EXISTS fact_links_into;
