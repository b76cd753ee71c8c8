-- An entity's newest facts are read from the newest end of this index (fact ids start with their creation time), so
-- consolidation and recall never count or page through a hub entity's facts to reach its latest ones.
CREATE INDEX fact_entities_by_entity_fact ON fact_entities(entity_id, fact_id);
