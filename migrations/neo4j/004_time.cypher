// Range indexes on the time fields: the temporal arm's overlap query (epoch milliseconds of the occurred-or-
// mentioned span), record-time filters (asOf) and the time-ordered audit reads.
CREATE RANGE INDEX fact_time_start IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.timeStartMs);
CREATE RANGE INDEX fact_time_end IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.timeEndMs);
CREATE RANGE INDEX fact_created IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.createdAt);
CREATE RANGE INDEX fact_mentioned IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.mentionedAt);
CREATE RANGE INDEX fact_occurred IF NOT EXISTS FOR (f:Fact) ON (f.bankId, f.occurredStart);
CREATE RANGE INDEX operation_created IF NOT EXISTS FOR (o:Operation) ON (o.createdAt);
