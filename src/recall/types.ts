// Recall's request, result and trace shapes, the per-budget settings, and the tunables of fusion, rerank
// and diversity. The request is validated at the HTTP edge; `resolveRequest` applies the defaults here.
import type { FactKind } from '../core/index.ts';
import type { SourceFact } from '../audit/index.ts';
import type { AuditReads, BankStore, ConsolidationQueue, FactFilter, RecallReads } from '../store/index.ts';
import { type ChangeLabel, changeIntent } from './updates.ts';

export type ArmName = 'semantic' | 'keyword' | 'graph' | 'temporal' | 'passage';
export const ARM_NAMES: readonly ArmName[] = ['semantic', 'keyword', 'graph', 'temporal', 'passage'];

export type Budget = 'low' | 'mid' | 'high';

export interface RecallRequest {
  query: string;
  /** Fact kinds to search (default: all). */
  types?: FactKind[];
  /** How much work recall may do (default: mid); see BUDGETS. */
  budget?: Budget;
  /** Token budget of the returned texts, counted with the real tokenizer (default 4096). */
  maxTokens?: number;
  /** Most results returned (default 10). */
  limit?: number;
  /** The instant relative time expressions in the query are read from (default: asOf, else now). */
  queryTime?: string;
  /** Facts must carry every one of these tags. */
  tags?: string[];
  /** Return what each arm found and how long it took. */
  trace?: boolean;
  /** Recall as the bank was at this instant: facts recorded by then and not yet superseded then. */
  asOf?: string;
  /** Only facts whose occurred interval overlaps [occurredFrom, occurredTo] (ISO; undated facts are left out). */
  occurredFrom?: string;
  occurredTo?: string;
  /** Only facts valid at this instant (ISO): validFrom <= validAt < validTo. */
  validAt?: string;
  /** MMR diversity trade-off for this request, relevance (1) against novelty; 0 turns it off (default: the settings'). */
  mmr?: number;
  /** Extras of observation results: their evidence facts with exact sources. */
  include?: { sourceFacts?: boolean };
  /** Most results read from one source passage (default: the settings' perSource, 2); 0 lifts the cap. */
  perSource?: number;
  /** 'source': also return the passages (whole messages, or sections of long ones) the results came from, each
   * once with its results' spans; the token budget then counts the passages' texts. */
  group?: 'source';
}

/** How much each budget lets recall do. */
export interface BudgetSettings {
  /** Candidates each arm returns. */
  candidatesPerArm: number;
  /** Chunks the keyword arm matches (their score flows to their facts, their sum to their documents). */
  chunkHits: number;
  /** Fused candidates the cross-encoder rescores (when one is loaded). */
  rerankN: number;
  /** Top semantic and keyword hits the graph arm spreads from (each). */
  graphSeeds: number;
  /** Facts read per entity when spreading over entities. */
  factsPerEntity: number;
}

/**
 * low: a quick look (small candidate pools, 20 reranked); mid (default): 50 reranked, the spec's default;
 * high: larger pools and 100 reranked, for reflect and offline evaluation.
 */
export const BUDGETS: Record<Budget, BudgetSettings> = {
  low: { candidatesPerArm: 40, chunkHits: 40, rerankN: 20, graphSeeds: 5, factsPerEntity: 100 },
  mid: { candidatesPerArm: 100, chunkHits: 100, rerankN: 50, graphSeeds: 10, factsPerEntity: 200 },
  high: { candidatesPerArm: 200, chunkHits: 200, rerankN: 100, graphSeeds: 20, factsPerEntity: 400 },
};

/** Tunables of the pipeline after the arms (server or bank configuration, not per request). */
export interface RecallSettings {
  /** RRF constant k: larger flattens the advantage of top ranks (default 10). */
  rrfK: number;
  /** Weight of each arm in RRF (default semantic 0.7, the others 1). */
  armWeights: Record<ArmName, number>;
  /** Share of the cross-encoder in the final score of reranked candidates: 1 replaces the fused order (default 0.7). */
  rerankWeight: number;
  /** MMR trade-off between relevance (1) and novelty (0); null turns MMR off (default off). */
  mmrLambda: number | null;
  /** Share by which a fused candidate's score rises when its fact mentions an entity the query names. */
  namedShare: number;
  /** Share of a question candidate's score given to the facts of the turn after it (its answer). */
  answerShare: number;
  /** Share of a candidate's score given to the facts of its speaker's next turn, after someone else's reply. */
  continuationShare: number;
  /** Share of its score a question candidate loses when a reply follows it. */
  questionPenalty: number;
  /** Share of its score the agent's own turn keeps when the question is in the first person (1: no change). */
  agentTurnWeight: number;
  /** Share of its score another speaker's turn keeps when the question names one speaker of the bank (1: no change). */
  otherSpeakerWeight: number;
  /** RRF constant k for a question asking for a set ("What books has Tim read?"; sets.ts): flatter than rrfK. */
  setRrfK: number;
  /** RRF weight of the keyword arm's search for the words nearest a set's (0: no such search). */
  setExpansionWeight: number;
  /** Most results read from one source passage (0: no cap). */
  perSource: number;
  /** Standing instructions and preferences placed among the results: how many, how close, from which rank. */
  standingLimit: number;
  standingMinSimilarity: number;
  standingRank: number;
  /** Weights, beside a passage's own BM25, of its best semantic and best keyword fact matches (passage arm). */
  passageSemantic: number;
  passageFact: number;
}

/**
 * Measured on LoCoMo (offline GloVe, no cross-encoder), the same gain on its first 4 and last 6 conversations:
 * k=10 lets each arm's top hits count (fused recall@10 0.686 -> 0.705), and halving the semantic arm, whose
 * GloVe similarity is the noisiest signal, adds more (0.722; multi-hop 0.381 -> 0.404). Doubling the score of
 * candidates that mention an entity the query names (namedShare 1), chosen on conversations 1-5 (0.725 -> 0.744,
 * multi-hop 0.409 -> 0.458), held on 6-10 (0.721 -> 0.741, multi-hop 0.394 -> 0.426). The turns that follow the
 * top candidates (followups.ts): the turn after a question takes half its score (answerShare 0.5; 0.3 to 1 all
 * help), the question keeps 0.7 of its own, and a speaker's next turn takes 0.3 (more lifts single-hop questions and
 * costs multi-hop ones): 1-5 0.744 -> 0.776 (multi-hop 0.458 -> 0.470), 6-10 0.741 -> 0.773 (0.426 -> 0.452).
 * On beam-dev's tuning half (conversations 1, 6, 11; long technical chats with an agent): two results per source,
 * the agent's turns keeping 0.1 of their score on first-person questions, and standing statements took message-level
 * R@10 from 0.285 to 0.469 (BM25 over messages: 0.382); then the passage arm at full weight, the closest standing
 * statement of each kind at cosine 0.55 (placed from rank 3, which keeps R@1), phrase runs in the keyword arm and
 * facts indexed with their context took it to 0.539. The semantic arm at 0.7 (chosen on LoCoMo 1-5: 0.784 -> 0.788,
 * multi-hop 0.489 -> 0.493) leaves beam-dev unchanged. A question naming one of the bank's speakers keeping the other
 * speakers' turns at 0.5 (otherSpeakerWeight; 0.3 to 0.7 all help), chosen on LoCoMo 1-5: 0.788 -> 0.795, multi-hop
 * 0.493 -> 0.517; held out on 6-10: 0.781 -> 0.784, multi-hop 0.449 -> 0.474; beam-dev unchanged. The named
 * speaker's own words to the listener (questions and remarks to "you" that say nothing of the speaker) keeping that
 * share too: 1-5 0.795 -> 0.802, multi-hop 0.517 -> 0.520. A question asking for a set ("What instruments does
 * Melanie play?", sets.ts; most of LoCoMo's multi-hop questions) fused with k=40 (20 to 60 all help multi-hop; 100
 * less) and the keyword arm also searching the 10 words nearest the set's (cosine 0.5 or more, GloVe), that ranking
 * at weight 0.5: chosen on 1-5, 0.802 -> 0.804, multi-hop 0.520 -> 0.537 (k=40 alone 0.529, the expansion alone
 * 0.520: its matches count once the fusion is flatter); held out on 6-10, all three: 0.784 -> 0.793, multi-hop
 * 0.475 -> 0.485; beam-dev unchanged (0.534 / 0.607).
 */
export const DEFAULT_SETTINGS: RecallSettings = {
  rrfK: 10,
  armWeights: { semantic: 0.7, keyword: 1, graph: 1, temporal: 1, passage: 1 },
  rerankWeight: 0.7,
  mmrLambda: null,
  namedShare: 1,
  answerShare: 0.5,
  continuationShare: 0.3,
  questionPenalty: 0.3,
  agentTurnWeight: 0.1,
  otherSpeakerWeight: 0.5,
  setRrfK: 40,
  setExpansionWeight: 0.5,
  perSource: 2,
  standingLimit: 2,
  standingMinSimilarity: 0.55,
  standingRank: 3,
  passageSemantic: 0.5,
  passageFact: 0.5,
};

export const DEFAULT_LIMIT = 10;
export const DEFAULT_MAX_TOKENS = 4096;

/** The request with its defaults applied, plus the filter every arm searches under. */
export interface ResolvedRequest {
  query: string;
  budget: Budget;
  settings: BudgetSettings;
  limit: number;
  maxTokens: number;
  queryTime: Date;
  filter: FactFilter;
  trace: boolean;
  /** The request's MMR lambda (null: off), or undefined to use the settings'. */
  mmrLambda: number | null | undefined;
  sourceFacts: boolean;
  asOf: string | null;
  /** The request's cap per source, or undefined to use the settings'. */
  perSource: number | undefined;
  group: 'source' | null;
}

export function resolveRequest(r: RecallRequest, now: Date = new Date()): ResolvedRequest {
  const budget = r.budget ?? 'mid';
  const filter: FactFilter = {};
  if (r.types?.length) filter.kinds = [...r.types];
  if (r.tags?.length) filter.tags = [...r.tags];
  if (r.asOf) filter.recordedBefore = new Date(r.asOf).toISOString();
  if (r.occurredFrom) filter.occurredFrom = new Date(r.occurredFrom).toISOString();
  if (r.occurredTo) filter.occurredTo = new Date(r.occurredTo).toISOString();
  if (r.validAt) filter.validAt = new Date(r.validAt).toISOString();
  // A question about what changed is answered by the old values too (unless asked as of a past instant).
  if (!r.asOf && changeIntent(r.query) === 'history') filter.includeSuperseded = true;
  return {
    query: r.query,
    budget,
    settings: BUDGETS[budget],
    limit: r.limit ?? DEFAULT_LIMIT,
    maxTokens: r.maxTokens ?? DEFAULT_MAX_TOKENS,
    queryTime: new Date(r.queryTime ?? r.asOf ?? now.toISOString()),
    filter,
    trace: r.trace ?? false,
    mmrLambda: r.mmr === undefined ? undefined : r.mmr > 0 ? r.mmr : null,
    sourceFacts: r.include?.sourceFacts ?? false,
    asOf: r.asOf ? new Date(r.asOf).toISOString() : null,
    perSource: r.perSource,
    group: r.group ?? null,
  };
}

/** Where a result came from. Null for observations (synthesized; their evidence is reachable by id). */
export interface RecallSource {
  documentId: string;
  chunkId: string;
  itemId: string;
  /** Character span of the fact in its chunk. */
  start: number;
  end: number;
  /** Metadata of the retained item. */
  metadata: Record<string, string>;
  /** The session of the item (see RecallResult.session for its ordinal). */
  session?: string | null;
}

export interface RecallScores {
  /** Each arm's own score for the fact (only the arms that found it). */
  semantic?: number;
  keyword?: number;
  graph?: number;
  temporal?: number;
  passage?: number;
  /** Weighted reciprocal rank fusion over the arms. */
  fused: number;
  /** Cross-encoder score, when one rescored the fact. */
  rerank?: number;
}

export interface RecallResult {
  id: string;
  text: string;
  kind: FactKind;
  /** The final score results are ordered by. */
  score: number;
  scores: RecallScores;
  occurredStart: string | null;
  occurredEnd: string | null;
  mentionedAt: string;
  /** Names of the entities the fact concerns. */
  entities: string[];
  speaker: string | null;
  tags: string[];
  source: RecallSource | null;
  /** The session the fact came from, with its ordinal in the bank (1: the earliest); null for facts of no session and observations. */
  session: { id: string; ordinal: number } | null;
  /** Tokens of `text` (what counted against maxTokens). */
  tokens: number;
  /**
   * Another candidate says the same thing with a different value ('update') or the opposite ('contradiction'):
   * whether this one is the earlier or the later of the two, and the other's id. Each result carries its own time.
   */
  change?: ChangeLabel;
  /** Observations only: facts about its entities still wait to be consolidated into it. */
  stale?: boolean;
  /** Observations only: how many facts support it. */
  proofCount?: number;
  /** Observations only, with include.sourceFacts: its evidence facts and their exact sources. */
  sourceFacts?: SourceFact[];
}

export interface ArmTrace {
  /** Wall time of the arm, from the start of recall to its answer (the graph arm includes waiting for its seeds). */
  ms: number;
  count: number;
  /** The arm's ranking (top candidates), best first. */
  hits: Array<{ id: string; score: number }>;
  /** What the arm read from the query (entities, time ranges, seeds). */
  detail?: Record<string, unknown>;
  error?: string;
}

export interface RecallTrace {
  query: string;
  /** The query without hub names, which the semantic and keyword arms searched with. */
  focus: string;
  /** Entities the query names; hubs raise facts but are not spread over, nor searched for by name. */
  entities: Array<{ id: string; name: string; mentions: number; hub: boolean }>;
  budget: Budget;
  queryTime: string;
  filter: FactFilter;
  arms: Record<ArmName, ArmTrace>;
  /** Milliseconds of each stage after the arms, and in total. */
  timings: RecallStageTimings;
  /** Candidates after fusion; how many the cross-encoder rescored (0 when none is loaded). */
  fused: number;
  reranked: number;
  reranker: string | null;
}

/** A source passage of a recall's results (with `group: 'source'`). */
export interface RecallPassage {
  chunkId: string;
  documentId: string;
  itemId: string;
  /** The passage's whole text. */
  text: string;
  speaker: string | null;
  timestamp: string | null;
  session: { id: string; ordinal: number } | null;
  /** Its best result's score (passages come in that order). */
  score: number;
  /** Tokens of `text` (what counted against maxTokens). */
  tokens: number;
  /** Its results, best first, each with the character span of its sentence in `text`. */
  results: Array<{ id: string; start: number; end: number }>;
}

export interface RecallResponse {
  results: RecallResult[];
  /** With `group: 'source'`: the passages the results came from, in the order of their best result. */
  passages?: RecallPassage[];
  /** Tokens of all returned texts (with `group: 'source'`, of the passages' texts). */
  tokens: number;
  trace?: RecallTrace;
}

/**
 * The roles recall reads: the bank, its indexes and facts, the observation extras of the results (evidence, history,
 * the fact count for hubs) and whether facts wait for consolidation (stale observations).
 */
export type RecallStore = BankStore & RecallReads & AuditReads & ConsolidationQueue;

/** Milliseconds of a recall's stages: the arms together (they run at once), then each step after them. */
export interface RecallStageTimings {
  arms: number;
  fusion: number;
  load: number;
  rerank: number;
  mmr: number;
  budget: number;
  total: number;
}

/** A recall's timings as a metrics listener hears them: its stages, and each arm's time from the start. */
export interface RecallTimings extends RecallStageTimings {
  perArm: Record<ArmName, number>;
}
