-- Standing instructions and preferences (a fact's metadata.stance, set at retain) are read for every recall, so
-- they are found through an index of their own rather than a scan of the bank's facts.
CREATE INDEX facts_by_stance ON facts (bank_id, json_extract(metadata, '$.stance'))
  WHERE json_extract(metadata, '$.stance') IS NOT NULL;
