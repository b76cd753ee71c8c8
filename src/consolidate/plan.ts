// Turns a consolidator's decisions into one atomic store write: observations created or revised (with fresh
// vectors for recall), evidence links both ways, one history revision per decision, superseded facts closed in
// valid time. Decisions naming unknown facts or observations are dropped, and so are those that break the
// grouping rules (subject.ts): an observation whose facts share no subject, a fact joining an observation about
// something else, a supersession between facts about different things (a consolidator, an LLM above all, can be
// wrong; the store must not be).
import { newId, type Evidence, type Fact, type Observation, type ObservationRevision } from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';
import { log } from '../log.ts';
import type { ObservationWrite } from '../store/index.ts';
import { factsInView, type ConsolidationDecision, type ConsolidationInput } from './consolidator.ts';
import { intersect, Subjects } from './subject.ts';
import { factTime } from './synthesis.ts';

export interface PlanContext {
  embedder: Embedder;
  workerId: string;
  consolidator: string;
}

export interface PlanSummary {
  created: number;
  revised: number;
  superseded: number;
}

interface State {
  observation: Observation;
  isNew: boolean;
  textChanged: boolean;
  /** What all its evidence shares (its subject). */
  subject: Set<string>;
}

const minOf = (xs: Array<string | null>): string | null => xs.filter((x): x is string => !!x).sort()[0] ?? null;
const maxOf = (xs: Array<string | null>): string | null =>
  xs
    .filter((x): x is string => !!x)
    .sort()
    .at(-1) ?? null;

/** Widens an observation's entities and times to cover newly cited facts. */
function cover(o: Observation, facts: Fact[]): void {
  o.entities = [...new Set([...o.entities, ...facts.flatMap((f) => f.entities)])];
  o.occurredStart = minOf([o.occurredStart, ...facts.map((f) => f.occurredStart)]);
  o.occurredEnd = maxOf([o.occurredEnd, ...facts.map((f) => f.occurredEnd ?? f.occurredStart)]);
  o.mentionedAt = maxOf([o.mentionedAt, ...facts.map((f) => f.mentionedAt)]) ?? o.mentionedAt;
  o.validFrom = minOf([o.validFrom, ...facts.map(factTime)]);
}

export async function planWrite(
  input: ConsolidationInput,
  decisions: ConsolidationDecision[],
  ctx: PlanContext,
): Promise<{ write: ObservationWrite; summary: PlanSummary }> {
  const { now } = input;
  const bankId = input.bank.id;
  const known = new Map<string, Fact>();
  for (const f of factsInView(input)) known.set(f.id, f);
  const existing = new Map(input.observations.map((r) => [r.observation.id, r.observation]));
  const states = new Map<string, State>();
  const refs = new Map<string, string>();
  const evidence: Evidence[] = [];
  const revisions: ObservationRevision[] = [];
  const supersede: ObservationWrite['supersede'] = [];
  const summary: PlanSummary = { created: 0, revised: 0, superseded: 0 };

  const factsOf = (ids: string[]): Fact[] => ids.map((id) => known.get(id)).filter((f): f is Fact => !!f);
  const subjects = new Subjects(input.entityNames, known.values());
  const loadedEvidence = new Map(input.observations.map((r) => [r.observation.id, r.facts]));
  const cite = (observationId: string, supports: Fact[], contradicts: Fact[]): void => {
    for (const f of supports) evidence.push({ observationId, factId: f.id, role: 'supports', createdAt: now });
    for (const f of contradicts) evidence.push({ observationId, factId: f.id, role: 'contradicts', createdAt: now });
  };

  for (const d of decisions) {
    if (d.action === 'supersede') {
      const older = known.get(d.factId);
      const newer = known.get(d.by);
      if (!older || !newer || older.id === newer.id) {
        log.warn(`consolidation: dropped a supersession naming unknown facts (${d.factId} by ${d.by})`);
        continue;
      }
      if (intersect(subjects.anchorsOf(older), subjects.anchorsOf(newer)).size === 0) {
        log.warn(`consolidation: dropped a supersession between facts about different things (${d.factId} by ${d.by})`);
        continue;
      }
      supersede.push({ factId: older.id, by: newer.id, at: now, validTo: factTime(newer) });
      summary.superseded++;
      continue;
    }
    const supports = factsOf(d.supports);
    const contradicts = factsOf(d.contradicts);
    const cited = [...supports, ...contradicts];
    if (cited.length === 0) {
      log.warn(`consolidation: dropped a decision (${d.action}) citing no known fact`);
      continue;
    }
    if (d.action === 'create') {
      if (refs.has(d.ref) || !d.text.trim()) {
        log.warn(`consolidation: dropped a create with a repeated ref or no text (${d.ref})`);
        continue;
      }
      const subject = subjects.sharedBy(cited);
      if (subject.size === 0) {
        log.warn(`consolidation: dropped a create (${d.ref}) whose facts share no subject`);
        continue;
      }
      const id = newId('obs');
      refs.set(d.ref, id);
      const first = cited[0];
      const tags = first.tags.filter((t) => cited.every((f) => f.tags.includes(t)));
      const observation: Observation = {
        id,
        bankId,
        kind: 'observation',
        text: d.text.trim(),
        occurredStart: null,
        occurredEnd: null,
        mentionedAt: first.mentionedAt,
        entities: [],
        source: null,
        speaker: null,
        metadata: { consolidator: ctx.consolidator, ...(d.facet ? { facet: d.facet } : {}) },
        tags,
        stance: null,
        context: null,
        status: 'active',
        validFrom: null,
        validTo: null,
        supersededBy: null,
        supersededAt: null,
        consolidatedAt: now,
        createdAt: now,
        updatedAt: now,
        proofCount: supports.length,
      };
      cover(observation, cited);
      states.set(id, { observation, isNew: true, textChanged: true, subject });
      cite(id, supports, contradicts);
      revisions.push({
        id: newId('rev'),
        observationId: id,
        oldText: null,
        newText: observation.text,
        factIds: cited.map((f) => f.id),
        reason: 'created',
        at: now,
      });
      summary.created++;
      continue;
    }
    const id = refs.get(d.observationId) ?? d.observationId;
    let state = states.get(id);
    if (!state) {
      const stored = existing.get(id);
      if (!stored) {
        log.warn(`consolidation: dropped an update of unknown observation ${d.observationId}`);
        continue;
      }
      const subject = subjects.sharedBy(loadedEvidence.get(id) ?? []);
      state = {
        observation: { ...stored, entities: [...stored.entities], metadata: { ...stored.metadata } },
        isNew: false,
        textChanged: false,
        subject,
      };
    }
    const subject = intersect(state.subject, subjects.sharedBy(cited));
    if (subject.size === 0) {
      log.warn(`consolidation: dropped an update of ${d.observationId}: its new facts are about something else`);
      continue;
    }
    if (!states.has(id)) {
      states.set(id, state);
      summary.revised++;
    }
    state.subject = subject;
    const o = state.observation;
    const oldText = o.text;
    if (d.text?.trim() && d.text.trim() !== o.text) {
      o.text = d.text.trim();
      state.textChanged = true;
    }
    cover(o, cited);
    o.updatedAt = now;
    o.proofCount += supports.filter((f) => !evidence.some((e) => e.observationId === id && e.factId === f.id)).length;
    cite(id, supports, contradicts);
    revisions.push({
      id: newId('rev'),
      observationId: id,
      oldText,
      newText: o.text,
      factIds: cited.map((f) => f.id),
      reason: d.reason,
      at: now,
    });
  }

  const touched = [...states.values()];
  const reembed = touched.filter((s) => s.textChanged);
  const vectors = reembed.length ? await ctx.embedder.embed(reembed.map((s) => s.observation.text)) : [];
  return {
    write: {
      bankId,
      observations: touched.map((s) => s.observation),
      vectors: reembed.map((s, i) => ({ id: s.observation.id, vector: vectors[i] })),
      embedder: ctx.embedder.id,
      evidence,
      revisions,
      supersede,
      removeObservationIds: [],
      consolidatedFactIds: input.facts.map((f) => f.id),
      workerId: ctx.workerId,
      expectUnchanged: touched
        .filter((s) => !s.isNew)
        .map((s) => ({ id: s.observation.id, updatedAt: existing.get(s.observation.id)?.updatedAt ?? '' })),
    },
    summary,
  };
}
