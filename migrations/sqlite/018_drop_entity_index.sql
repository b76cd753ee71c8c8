-- fact_entities_by_entity_fact (012) answers every lookup fact_entities_by_entity did (entity_id is its prefix); the
-- older index only cost pages on every mention written.
DROP INDEX IF EXISTS fact_entities_by_entity;
