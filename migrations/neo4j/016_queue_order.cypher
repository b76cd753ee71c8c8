// The consolidation queue in the order facts were written: a claim takes the oldest waiting facts of a bank, and
// with the sequence number in the index (after the two equalities) they can be read in order instead of sorted.
CREATE RANGE INDEX fact_queue_order IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.queued, f.seq);
