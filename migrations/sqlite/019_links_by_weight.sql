-- A fact's strongest incoming links of a type straight from the index (recall's graph arm reads a bounded number per
-- fact, its follow-ups the temporal ones; a fact many others resemble can hold thousands of semantic links). It
-- serves every lookup by to_id that fact_links_to served.
CREATE INDEX fact_links_into ON fact_links(to_id, type, weight);
DROP INDEX IF EXISTS fact_links_to;
