// Cypher for the LLM usage ledger on Neo4j (store/neo4j/usage.ts): one (:LlmUsage) node per call, summed per
// operation, provider and model over a bank's half-open time range (and per hour or day of it, when asked). Times
// are canonical ISO text, so they compare as the instants they are. No bank deletion removes them: what was spent
// outlives the bank it was spent for.
import { cypher, int, type Params, type Statement } from '../statement.ts';

export const recordUsage = (props: Params): Statement => cypher('CREATE (u:LlmUsage) SET u = $props', { props });

const SUMS = `count(*) AS calls, sum(CASE WHEN u.ok THEN 0 ELSE 1 END) AS failures, sum(u.inputTokens) AS inputTokens,
  sum(u.outputTokens) AS outputTokens, sum(u.cachedTokens) AS cachedTokens, sum(u.costUsd) AS costUsd, sum(u.latencyMs) AS latencyMs`;

const MATCH = `MATCH (u:LlmUsage {bankId: $bankId}) WHERE ($from IS NULL OR u.at >= $from) AND ($to IS NULL OR u.at < $to)`;

export interface UsageRange {
  bankId: string;
  from: string | null;
  to: string | null;
}

/** One row per operation, provider and model, ordered by operation, model, provider. */
export const usageGroups = (r: UsageRange): Statement =>
  cypher(
    `${MATCH}
     RETURN u.operation AS operation, u.provider AS provider, u.model AS model, ${SUMS}
     ORDER BY operation, model, provider`,
    { ...r },
  );

/** The range's totals: one row, zeros when it holds no call. */
export const usageTotal = (r: UsageRange): Statement => cypher(`${MATCH} RETURN ${SUMS}`, { ...r });

/**
 * Per bucket (the first $chars of the canonical time, then $rest: its UTC hour or day), operation, provider and
 * model, ordered by start, operation, model, provider.
 */
export const usageSeries = (r: UsageRange, bucket: { chars: number; rest: string }): Statement =>
  cypher(
    `${MATCH}
     WITH substring(u.at, 0, $chars) + $rest AS start, u
     RETURN start, u.operation AS operation, u.provider AS provider, u.model AS model, ${SUMS}
     ORDER BY start, operation, model, provider`,
    { ...r, chars: int(bucket.chars), rest: bucket.rest },
  );
