// Fused recall: the four arms run at once (the graph and temporal arms start from the semantic and keyword
// hits when those arrive), their rankings are fused with weighted RRF (flatter for a question asking for a set,
// whose nearest words the keyword arm also searches: sets.ts), the turns answering questions found are
// raised, then candidates mentioning what the query names (and, for a question about one attribute of someone,
// the candidates stating it now, latest first), the top candidates are rescored by a
// cross-encoder when one is loaded, optionally diversified with MMR, and trimmed to the token budget.
// Every result carries its arm scores, times, entity names and source; observations also their staleness, proof count
// and (on request) source facts; `trace` adds each arm's findings and timings.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { observationExtras, type ObservationExtras } from '../audit/index.ts';
import { CairnError, notFound, type Fact } from '../core/index.ts';
import type { Embedder, Reranker } from '../embed/index.ts';
import type { Scored } from '../store/index.ts';
import { timedSpan } from '../telemetry/index.ts';
import type { ArmContext, ArmOutput } from './arms/context.ts';
import { graphArm } from './arms/graph.ts';
import { keywordArm } from './arms/keyword.ts';
import { passageArm } from './arms/passage.ts';
import { semanticArm } from './arms/semantic.ts';
import { temporalArm } from './arms/temporal.ts';
import { fitToTokens } from './budget.ts';
import { groupBySource } from './passages.ts';
import { FactLoader } from './facts.ts';
import { matchesFilter } from './filter.ts';
import { raiseFollowups } from './followups.ts';
import { fuse, type Fused } from './fusion.ts';
import { mmr } from './mmr.ts';
import { raiseNamed } from './named.ts';
import { askedAttribute, raiseAnswers } from './attribute.ts';
import { isFirstPerson, lowerAgentTurns, lowerOtherSpeakers, namedSpeaker } from './asker.ts';
import { capPerSource, sourceOf } from './sources.ts';
import { bearsOnAsker, placeStanding, standingFor } from './standing.ts';
import { changeIntent, changeLabels, changePairs, orderChanges } from './updates.ts';
import { analyzeQuery } from './query.ts';
import { rerank } from './rerank.ts';
import { askedSet, expansionOf } from './sets.ts';
import { keepSessions, type SessionLabel, sessionLabel, sessionLabels, sessionScope } from './sessions.ts';
import {
  ARM_NAMES,
  type ArmName,
  type ArmTrace,
  DEFAULT_SETTINGS,
  type RecallRequest,
  type RecallResponse,
  type RecallResult,
  type RecallSettings,
  type RecallStore,
  type RecallTimings,
  type RecallTrace,
  resolveRequest,
} from './types.ts';

export interface RecallDeps {
  store: RecallStore;
  embedder: Embedder;
  /** A cross-encoder; without one the fused order stands. */
  reranker?: Reranker | null;
  /** Overrides of DEFAULT_SETTINGS (RRF k, arm weights, rerank weight, MMR). */
  settings?: Partial<RecallSettings>;
  /** Hears every recall's timings (metrics), trace or not. */
  onTimings?: (timings: RecallTimings) => void;
}

/** How many fused candidates are read per result wanted (room for the filter re-check, the cap per source and
 * for MMR to choose). */
const POOL_PER_RESULT = 6;
/** How many of the best fused candidates pass shares of their scores to the turns that follow them. */
const FOLLOWUP_WINDOW = 20;
/** How many of the best fused candidates are read to raise those mentioning what the query names. */
const NAMED_WINDOW = 100;
/** How many of the best fused candidates a first-person question re-weighs by whose turn they come from. */
const AGENT_WINDOW = 300;
/** How many of the best fused candidates a question about a named speaker re-weighs by whose turn they come from. */
const SPEAKER_WINDOW = 100;

export function settingsOf(overrides: Partial<RecallSettings> = {}): RecallSettings {
  return { ...DEFAULT_SETTINGS, ...overrides, armWeights: { ...DEFAULT_SETTINGS.armWeights, ...overrides.armWeights } };
}

export async function recall(deps: RecallDeps, bankId: string, request: RecallRequest): Promise<RecallResponse> {
  // One turn of the event loop first: a caller recalling in a loop in this process (an embedding program, a
  // benchmark) would otherwise never let timers, I/O and worker threads' answers in when a recall's reads all finish
  // on this thread (the bank's vector index then never finished loading, nor the reader threads starting).
  await nextTurn();
  const started = performance.now();
  const since = (t: number): number => round(performance.now() - t);
  const { store, embedder } = deps;
  const reranker = deps.reranker ?? null;
  const settings = settingsOf(deps.settings);
  const req = resolveRequest(request);

  const bank = await store.getBank(bankId);
  if (!bank) throw notFound('bank', bankId);
  if (bank.embedder !== null && bank.embedder !== embedder.id)
    throw new CairnError(
      'embedder_mismatch',
      `bank '${bankId}' holds vectors of '${bank.embedder}' but the active embedder is '${embedder.id}'; run 'cairn reembed ${bankId}'`,
    );

  // The arms.
  const query = await analyzeQuery(store, bankId, req.query);
  const facts = new FactLoader(store, bankId);
  const sessions = sessionScope(store, bankId, req.query, req.queryTime);
  // A question asking for a set: the words nearest the set's, when the embedder knows words.
  const set = askedSet(req.query);
  const expansion =
    set && settings.setExpansionWeight > 0 && embedder.similarWords ? expansionOf(set, embedder.similarWords.bind(embedder)) : [];
  const ctx: ArmContext = { store, bankId, request: req, query, facts, sessions, expansion };
  const vector = embedder.embed([query.focus]).then(([v]) => v);
  const timed = (p: Promise<ArmOutput>): Promise<ArmOutput & { ms: number }> => p.then((out) => ({ ...out, ms: since(started) }));
  const semantic = timed(semanticArm(ctx, vector));
  const keyword = timed(keywordArm(ctx));
  const seeds: Promise<[Scored[], Scored[]]> = Promise.all([semantic, keyword]).then(([s, k]) => [s.hits, k.hits]);
  const [s, k, g, t, p] = await Promise.all([
    semantic,
    keyword,
    timed(graphArm(ctx, seeds)),
    timed(temporalArm(ctx, vector, seeds)),
    timed(passageArm(ctx, Promise.all([semantic, keyword]), settings)),
  ]);
  const arms: Record<ArmName, ArmOutput & { ms: number }> = { semantic: s, keyword: k, graph: g, temporal: t, passage: p };
  const armsMs = since(started);

  // Fusion.
  let mark = performance.now();
  let fused = fuse(
    [
      ...ARM_NAMES.map((name) => ({ name, weight: settings.armWeights[name], hits: arms[name].hits })),
      { name: 'keyword' as const, weight: settings.setExpansionWeight, hits: k.expansionHits ?? [] },
    ],
    set ? settings.setRrfK : settings.rrfK,
  );
  fused = await raiseFollowups({ store, bankId, facts, filter: req.filter }, fused, FOLLOWUP_WINDOW, {
    answer: settings.answerShare,
    continuation: settings.continuationShare,
    questionPenalty: settings.questionPenalty,
  });
  /** Re-orders the best `size` candidates by what their facts say (read whole, or as facets where those say enough);
   * the rest keep their places below. */
  const reorderBy = async <F extends { id: string }>(
    size: number,
    read: (ids: string[]) => Promise<F[]>,
    reorder: (window: typeof fused, windowFacts: Map<string, F>) => typeof fused,
  ): Promise<void> => {
    const window = fused.slice(0, size);
    const windowFacts = new Map((await read(window.map((f) => f.id))).map((f) => [f.id, f]));
    fused = [...reorder(window, windowFacts), ...fused.slice(size)];
  };
  const reorderTop = (size: number, reorder: (window: typeof fused, windowFacts: Map<string, Fact>) => typeof fused) =>
    reorderBy(size, (ids) => facts.get(ids), reorder);
  if (query.entities.length && settings.namedShare > 0) {
    const named = new Set(query.entities.map((e) => e.id));
    await reorderTop(NAMED_WINDOW, (w, wf) => raiseNamed(w, wf, named, settings.namedShare));
  }
  // A question about one attribute of someone is answered by its current statements, the latest first.
  const asked = askedAttribute(req.query);
  if (asked) await reorderTop(NAMED_WINDOW, (w, wf) => raiseAnswers(w, wf, asked));
  if (settings.agentTurnWeight !== 1 && isFirstPerson(req.query))
    // Only kinds are read here: a window this wide read as whole facts cost a millisecond at a million facts.
    await reorderBy(
      AGENT_WINDOW,
      (ids) => facts.facets(ids, false),
      (w, wf) => lowerAgentTurns(w, wf, settings.agentTurnWeight),
    );
  else if (settings.otherSpeakerWeight !== 1 && query.entities.length)
    await reorderTop(SPEAKER_WINDOW, (w, wf) => {
      const speaker = namedSpeaker(query.entities, wf.values());
      return speaker ? lowerOtherSpeakers(w, wf, speaker, settings.otherSpeakerWeight) : w;
    });
  const standing = bearsOnAsker(
    req.query,
    query.entities.some((e) => e.type === 'person'),
  )
    ? await standingFor(store, bankId, req.filter, await vector, settings)
    : [];
  fused = placeStanding(fused, standing, settings.standingRank, (id, score) => ({ id, score, ranks: {}, scores: {} }));
  const fusionMs = since(mark);

  // The candidates' facts (re-checked against the filter: every arm must honour it, this proves it).
  mark = performance.now();
  const poolSize = Math.max(req.limit * POOL_PER_RESULT, reranker ? req.settings.rerankN : 0);
  // A query naming sessions is answered from them only.
  const pool = (await keepSessions(fused, facts, await sessions, poolSize)).slice(0, poolSize);
  const poolFacts = new Map((await facts.get(pool.map((f) => f.id))).map((f) => [f.id, f]));
  const candidates = pool.filter((f) => {
    const fact = poolFacts.get(f.id);
    return fact !== undefined && matchesFilter(fact, req.filter);
  });
  const loadMs = since(mark);

  // Cross-encoder.
  mark = performance.now();
  let ranked: Array<{ id: string; score: number; rerank?: number }> = candidates.map((c) => ({ id: c.id, score: c.score }));
  let reranked = 0;
  if (reranker && candidates.length) {
    const input = candidates.map((c) => ({ id: c.id, text: poolFacts.get(c.id)?.text ?? '', fused: c.score }));
    ranked = await rerank(reranker, req.query, input, req.settings.rerankN, settings.rerankWeight);
    reranked = Math.min(req.settings.rerankN, candidates.length);
  }
  const rerankMs = since(mark);

  // One result per text: an observation that only repeats a fact (a belief resting on that one fact so far) is
  // the same memory twice; the fact stands for both, at the better of their places.
  ranked = oneResultPerText(ranked, poolFacts);
  ranked = capPerSource(ranked, poolFacts, req.perSource ?? settings.perSource);
  // Updated values and contradictions: the newest first, or both, as the question asks.
  const changes = changePairs(
    ranked.map((r) => poolFacts.get(r.id)).filter((f): f is Fact => f !== undefined),
    req.limit,
  );
  ranked = orderChanges(ranked, changes, changeIntent(req.query), req.limit);

  // Diversity.
  mark = performance.now();
  const mmrLambda = req.mmrLambda === undefined ? settings.mmrLambda : req.mmrLambda;
  if (mmrLambda !== null && ranked.length > 1) {
    const vectors = await store.getVectors(
      bankId,
      ranked.map((r) => r.id),
    );
    const groups = new Map(
      ranked.flatMap((r) => {
        const source = sourceOf(poolFacts.get(r.id));
        return source === null ? [] : [[r.id, source] as const];
      }),
    );
    const order = mmr(
      ranked.map((r) => ({ id: r.id, relevance: r.score })),
      vectors,
      mmrLambda,
      req.limit,
      groups,
    );
    const byId = new Map(ranked.map((r) => [r.id, r]));
    ranked = order.map((id) => byId.get(id)).filter((r): r is (typeof ranked)[number] => r !== undefined);
  }
  ranked = ranked.slice(0, req.limit);
  const mmrMs = since(mark);

  // Results within the token budget.
  mark = performance.now();
  const chosen = ranked.map((r) => poolFacts.get(r.id)).filter((f): f is Fact => f !== undefined);
  const names = new Map((await store.getEntities(bankId, [...new Set(chosen.flatMap((f) => f.entities))])).map((e) => [e.id, e.name]));
  const labels = await sessionLabels(store, bankId, chosen);
  const fusedById = new Map(candidates.map((c) => [c.id, c]));
  // Each result names a partner shown with it when it has one (the pairs above start from the results in view
  // before reordering; the values shown now may pair among themselves).
  const changeOf = changeLabels(
    [...changePairs(chosen, chosen.length), ...changes],
    ranked.map((r) => r.id),
  );
  const built = ranked.flatMap((r) => {
    const fact = poolFacts.get(r.id);
    const f = fusedById.get(r.id);
    return fact && f ? [toResult(fact, f, r, names, labels, changeOf.get(r.id))] : [];
  });
  const extras = await observationExtras(store, bankId, built, { sourceFacts: req.sourceFacts, ...(req.asOf ? { asOf: req.asOf } : {}) });
  const ordered = withExtras(built, extras);
  let response: RecallResponse;
  if (req.group === 'source') {
    const chunkIds = [...new Set(ordered.flatMap((r) => (r.source ? [r.source.chunkId] : [])))];
    const chunks = new Map((await store.getChunks(bankId, chunkIds)).map((c) => [c.id, c]));
    response = groupBySource(ordered, chunks, req.maxTokens);
  } else {
    const { kept, tokens } = fitToTokens(ordered, req.maxTokens);
    response = { results: kept, tokens };
  }
  const budgetMs = since(mark);
  const timings = { arms: armsMs, fusion: fusionMs, load: loadMs, rerank: rerankMs, mmr: mmrMs, budget: budgetMs, total: since(started) };
  deps.onTimings?.({ ...timings, perArm: Object.fromEntries(ARM_NAMES.map((name) => [name, arms[name].ms])) as Record<ArmName, number> });
  traceStages(started, timings, arms);

  if (req.trace) {
    response.trace = {
      query: req.query,
      focus: query.focus,
      entities: query.entities.map((e) => ({ id: e.id, name: e.name, mentions: e.mentionCount, hub: query.hubs.has(e.id) })),
      budget: req.budget,
      queryTime: req.queryTime.toISOString(),
      filter: req.filter,
      arms: Object.fromEntries(ARM_NAMES.map((name) => [name, armTrace(arms[name])])) as Record<ArmName, ArmTrace>,
      timings,
      fused: fused.length,
      reranked,
      reranker: reranker?.id ?? null,
    } satisfies RecallTrace;
  }
  return response;
}

function toResult(
  fact: Fact,
  fused: Fused<ArmName>,
  ranked: { score: number; rerank?: number },
  names: Map<string, string>,
  labels: Map<string, SessionLabel>,
  change: RecallResult['change'],
): Omit<RecallResult, 'tokens'> {
  return {
    id: fact.id,
    text: fact.text,
    kind: fact.kind,
    score: ranked.score,
    scores: { ...fused.scores, fused: fused.score, ...(ranked.rerank === undefined ? {} : { rerank: ranked.rerank }) },
    occurredStart: fact.occurredStart,
    occurredEnd: fact.occurredEnd,
    mentionedAt: fact.mentionedAt,
    entities: fact.entities.map((id) => names.get(id)).filter((n): n is string => n !== undefined),
    speaker: fact.speaker,
    tags: fact.tags,
    source: fact.source ? { ...fact.source, metadata: fact.metadata } : null,
    session: sessionLabel(fact, labels),
    ...(change ? { change } : {}),
  };
}

/**
 * Observations get their staleness, proof count and (on request) source facts; as of a past instant they read as
 * they did then, and those that did not exist yet are dropped; outdated ones go below the current results.
 */
function withExtras(
  results: Array<Omit<RecallResult, 'tokens'>>,
  extras: Map<string, ObservationExtras>,
): Array<Omit<RecallResult, 'tokens'>> {
  const current: Array<Omit<RecallResult, 'tokens'>> = [];
  const outdated: Array<Omit<RecallResult, 'tokens'>> = [];
  for (const r of results) {
    const x = extras.get(r.id);
    if (r.kind !== 'observation' || !x) {
      current.push(r);
      continue;
    }
    if (x.textAsOf === null) continue;
    const out: Omit<RecallResult, 'tokens'> = { ...r, text: x.textAsOf ?? r.text, stale: x.stale, proofCount: x.proofCount };
    if (x.sourceFacts) out.sourceFacts = x.sourceFacts;
    // An observation resting only on superseded facts no longer holds: it ranks below everything current.
    (x.outdated && !x.textAsOf ? outdated : current).push(out);
  }
  return [...current, ...outdated];
}

function oneResultPerText<T extends { id: string }>(ranked: T[], facts: Map<string, Fact>): T[] {
  const key = (f: Fact | undefined): string => (f ? f.text.trim().replace(/\s+/g, ' ').toLowerCase() : '');
  const factByText = new Map<string, T>();
  for (const r of ranked) {
    const f = facts.get(r.id);
    if (f && f.kind !== 'observation' && !factByText.has(key(f))) factByText.set(key(f), r);
  }
  const seen = new Set<string>();
  const out: T[] = [];
  for (const r of ranked) {
    const k = key(facts.get(r.id));
    if (!k) {
      out.push(r);
      continue;
    }
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(factByText.get(k) ?? r);
  }
  return out;
}

/** Spans for the stages as timed above: the arms side by side from the start, then each step after the last. */
function traceStages(
  started: number,
  timings: Omit<RecallTimings, 'perArm'>,
  arms: Record<ArmName, { ms: number; hits: unknown[] }>,
): void {
  for (const name of ARM_NAMES) timedSpan(`recall.arm.${name}`, started, started + arms[name].ms, { 'cairn.hits': arms[name].hits.length });
  let at = started + timings.arms;
  for (const stage of ['fusion', 'load', 'rerank', 'mmr', 'budget'] as const) {
    timedSpan(`recall.${stage}`, at, at + timings[stage]);
    at += timings[stage];
  }
}

function armTrace(out: ArmOutput & { ms: number }): ArmTrace {
  return { ms: out.ms, count: out.hits.length, hits: out.hits, ...(out.detail ? { detail: out.detail } : {}) };
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
