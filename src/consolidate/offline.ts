// The offline consolidator (default with no LLM): deterministic and extractive. Each new fact, in turn:
//   1. replaces older single-valued statements it contradicts ("X lives in A" -> "X lives in B": A is superseded),
//      only about the same subject and attribute;
//   2. joins the observation it relates to most, among those about the same subject: an observation is about what
//      all its evidence shares (a person or thing other than the speakers, a compound thing like "the LLM search
//      feature", or one attribute of someone like where Maya lives), and a fact joins only when it shares that
//      too and its topic relates (shared topic words backed by similarity), or it changes the attribute;
//   3. else starts a new observation, when it is about something (and, in a bank with a mission, relevant to it).
// Small talk, greetings, thanks and questions stay facts: they are not evidence for beliefs.
// The mission steers which facts start observations, which facet (mission term) they belong to, and which
// sentences an observation shows. Updating is preferred to creating; an observation that already says the same
// gains evidence instead of a twin.
import { type Bank, type Fact, type Observation, cosine } from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';
import { nameKey } from '../text/index.ts';
import { changesStory } from './change.ts';
import {
  factsInView,
  type ConsolidationDecision,
  type ConsolidationInput,
  type Consolidator,
  type RemainingEvidence,
} from './consolidator.ts';
import { missionProfile, missionRelevance, type MissionProfile, type Relevance } from './mission.ts';
import { calibrate, type Calibration } from './similarity.ts';
import { stemSet } from './stems.ts';
import { replaces, type Statement } from './statement.ts';
import { intersect, Subjects } from './subject.ts';
import { byStoryTime, byTime, statedPart, synthesize, type EvidenceItem } from './synthesis.ts';

export interface OfflineOptions {
  /** Similarity (0 = unrelated baseline, 1 = identical) that, with one shared topic word, relates two facts. */
  joinSimilarity: number;
  /** Topic words (content words other than names and small talk) a fact needs to take part in observations. */
  minTopicWords: number;
  /** Share of the facts in view above which a topic word is too common to tell facts apart. */
  commonShare: number;
  /** Similarity at which a fact says the same as an evidence fact (it joins and only adds evidence). */
  sameSimilarity: number;
  /** Mission relevance a fact needs to start an observation, in a bank with a mission. */
  minRelevance: number;
  /** Score taken off an observation of another facet (mission term) than the fact's. */
  facetPenalty: number;
  /** Most sentences an observation without changes shows. */
  maxSentences: number;
}

export const DEFAULT_OFFLINE_OPTIONS: OfflineOptions = {
  joinSimilarity: 0.65,
  minTopicWords: 2,
  commonShare: 0.12,
  sameSimilarity: 0.9,
  minRelevance: 0.3,
  facetPenalty: 0.15,
  maxSentences: 3,
};

interface FactInfo {
  fact: Fact;
  vector: Float32Array | null;
  /** Content stems that say what the fact is about: no names, no small talk. */
  topics: Set<string>;
  /** Content stems without small talk, names included (what the fact says, about whom). */
  says: Set<string>;
  /** Name words of the fact's entities. */
  names: Set<string>;
  /** Name keys of the fact's speaker (an entity that is only the speaker says little about the topic). */
  speaker: string | null;
  relevance: Relevance;
  /** What the fact is about, by which observations are grouped (see anchorsOf). */
  anchors: Set<string>;
  /** Greetings, thanks, small talk and questions are not evidence for beliefs. */
  evidence: boolean;
}

interface Working {
  id: string;
  isNew: boolean;
  text: string;
  tagsKey: string;
  facet: string | null;
  entities: Set<string>;
  items: Map<string, EvidenceItem>;
  /** What every evidence fact shares (the observation's subject); a fact joins only when it shares one too. */
  anchors: Set<string> | null;
}

/** Words of conversation that carry no topic ("wow, that sounds great, thanks!"). */
const SMALL_TALK = stemSet(
  `wow great awesome amazing cool nice glad thank thanks sound sounds lovely really sure totally definitely absolutely super
  good fun happy excited hope hear congrats congratulations sweet wonderful beautiful fantastic incredible proud appreciate
  mean means lot lots time times day days today yesterday tomorrow week weeks month months year years feel felt think know
  want need hey hello bye yeah okay ok right well maybe kind stuff thing things way ways much many little bit always never
  guess totally pretty tell told say said talk talking new old cute true keep going awesome`,
);

const tagsKey = (tags: readonly string[]): string => JSON.stringify([...tags].sort());

/** Thanks, greetings and farewells: politeness, not beliefs. */
const POLITENESS =
  /^(?:thanks|thank you|thx|congrats|congratulations|hi|hey|hello|bye|goodbye|good night|see you|take care|cheers|you're welcome|no problem|sorry)\b/i;

export class OfflineConsolidator implements Consolidator {
  readonly name = 'offline';
  readonly options: OfflineOptions;

  constructor(
    private readonly embedder: Embedder,
    options: Partial<OfflineOptions> = {},
  ) {
    this.options = { ...DEFAULT_OFFLINE_OPTIONS, ...options };
  }

  async consolidate(input: ConsolidationInput): Promise<ConsolidationDecision[]> {
    const calibration = await calibrate(this.embedder);
    const mission = await missionProfile(input.bank.mission, this.embedder, calibration);
    if (input.pause) {
      // The NLP reading of each fact is most of the run's CPU and is cached: read them one at a time first, stepping
      // aside between them, so the run itself (synchronous) is short.
      const subjects = new Subjects(input.entityNames, []);
      for (const f of factsInView(input)) {
        subjects.analysisOf(f);
        await input.pause();
      }
    }
    return new Run(input, calibration, mission, this.options).decide();
  }

  async resynthesize(bank: Bank, _observation: Observation, evidence: RemainingEvidence[]): Promise<string> {
    const calibration = await calibrate(this.embedder);
    const mission = await missionProfile(bank.mission, this.embedder, calibration);
    const items = evidence.map((e) => ({
      fact: e.fact,
      role: e.role,
      weight: missionRelevance(mission, stemSet(e.fact.text), null, calibration).score,
    }));
    return synthesize(items, { maxSentences: this.options.maxSentences });
  }
}

/** One consolidate() call: the observations as they evolve while the new facts are taken in turn. */
class Run {
  private readonly infos = new Map<string, FactInfo>();
  private readonly working: Working[] = [];
  private readonly superseded = new Set<string>();
  private readonly decisions: ConsolidationDecision[] = [];
  private refs = 0;
  /** What facts are about; everyone who speaks in view is a speaker, which says nothing about a fact's subject. */
  private readonly subjects: Subjects;

  constructor(
    private readonly input: ConsolidationInput,
    private readonly calibration: Calibration,
    private readonly mission: MissionProfile,
    private readonly options: OfflineOptions,
  ) {
    this.subjects = new Subjects(input.entityNames, factsInView(input));
    for (const r of input.observations) {
      const roles = new Map(r.evidence.map((e) => [e.factId, e.role]));
      const w: Working = {
        id: r.observation.id,
        isNew: false,
        text: r.observation.text,
        tagsKey: tagsKey(r.observation.tags),
        facet: r.observation.metadata.facet ?? null,
        entities: new Set(r.observation.entities),
        items: new Map(),
        anchors: null,
      };
      for (const f of r.facts) this.addItem(w, { fact: f, role: roles.get(f.id) ?? 'supports', weight: this.info(f).relevance.score });
      this.working.push(w);
    }
  }

  decide(): ConsolidationDecision[] {
    this.findCommonWords();
    for (const f of this.input.facts) this.take(f);
    return this.decisions;
  }

  /** Topic words most facts in view share ("photo" in a chat full of photos) tell nothing apart: they are dropped. */
  private findCommonWords(): void {
    const facts = new Map<string, Fact>();
    for (const f of factsInView(this.input)) facts.set(f.id, f);
    if (facts.size < 100) return;
    const df = new Map<string, number>();
    for (const f of facts.values()) for (const t of this.info(f).topics) df.set(t, (df.get(t) ?? 0) + 1);
    const limit = facts.size * this.options.commonShare;
    const common = new Set([...df].filter(([, n]) => n > limit).map(([t]) => t));
    if (common.size) for (const i of this.infos.values()) for (const t of common) i.topics.delete(t);
  }

  private name(entityId: string): string {
    return this.subjects.name(entityId);
  }

  private info(f: Fact): FactInfo {
    let i = this.infos.get(f.id);
    if (!i) {
      const names = new Set<string>();
      for (const e of f.entities) for (const w of this.name(e).split(' ')) if (w) names.add(w);
      if (f.speaker) for (const w of nameKey(f.speaker).split(' ')) if (w) names.add(w);
      // Topic words are stems: a name's stem ("leed" of Leeds) is a name too.
      for (const w of [...names]) for (const stem of stemSet(w)) names.add(stem);
      const stems = stemSet(f.text);
      const topics = new Set([...stems].filter((s) => !names.has(s) && !SMALL_TALK.has(s) && !/^\d+$/.test(s)));
      const vector = this.input.vectors.get(f.id) ?? null;
      const says = new Set([...stems].filter((s) => !SMALL_TALK.has(s)));
      const entityNames = new Set<string>();
      for (const e of f.entities) for (const w of this.name(e).split(' ')) if (w) entityNames.add(w);
      const stated = statedPart(f.text);
      const evidence = !POLITENESS.test(stated) && !/\?\s*$/.test(f.text) && f.kind !== 'observation';
      i = {
        fact: f,
        vector,
        topics,
        says,
        names: entityNames,
        speaker: f.speaker ? nameKey(f.speaker) : null,
        relevance: missionRelevance(this.mission, stems, vector, this.calibration),
        anchors: new Set(),
        evidence,
      };
      this.infos.set(f.id, i);
      i.anchors = this.subjects.anchorsOf(f);
    }
    return i;
  }

  private addItem(w: Working, item: EvidenceItem): void {
    w.items.set(item.fact.id, item);
    for (const e of item.fact.entities) w.entities.add(e);
    const mine = this.info(item.fact).anchors;
    w.anchors = w.anchors === null ? new Set(mine) : intersect(w.anchors, mine);
  }

  private statementOf(f: Fact): Statement | null {
    return this.subjects.analysisOf(f).statement;
  }

  /** Facts a new fact may replace: stored facts about its entities, evidence of the loaded observations, earlier new facts. */
  private candidatesFor(f: Fact): Fact[] {
    const seen = new Map<string, Fact>();
    const key = tagsKey(f.tags);
    const entities = new Set(f.entities);
    const add = (c: Fact): void => {
      if (c.id === f.id || c.kind === 'observation' || c.status !== 'active' || this.superseded.has(c.id)) return;
      if (tagsKey(c.tags) === key && c.entities.some((e) => entities.has(e))) seen.set(c.id, c);
    };
    for (const c of this.input.relatedFacts) add(c);
    for (const w of this.working) for (const item of w.items.values()) add(item.fact);
    for (const c of this.input.facts) {
      if (c.id === f.id) break;
      add(c);
    }
    return [...seen.values()];
  }

  /** Supersession: returns the facts the new fact replaced (or, told out of order, the fact that replaces it). */
  private supersede(f: Fact): string[] {
    const mine = this.statementOf(f);
    if (!mine) return [];
    const touched: string[] = [];
    for (const c of this.candidatesFor(f)) {
      const theirs = this.statementOf(c);
      if (!theirs) continue;
      const fNewer = byStoryTime(c, f) <= 0;
      const [newer, older] = fNewer ? [f, c] : [c, f];
      if (!replaces(fNewer ? mine : theirs, fNewer ? theirs : mine)) continue;
      if (this.superseded.has(older.id)) continue;
      this.superseded.add(older.id);
      this.decisions.push({ action: 'supersede', factId: older.id, by: newer.id });
      touched.push(c.id);
    }
    return touched;
  }

  /**
   * How strongly a new fact relates to one evidence fact: 1 for a near twin; else it takes shared topic words
   * (two or more; or one, backed by similarity, or by a shared entity other than the speaker, plus some similarity).
   */
  private relation(i: FactInfo, other: FactInfo): number {
    const o = this.options;
    const cos = i.vector && other.vector ? this.calibration.adjust(cosine(i.vector, other.vector)) : 0;
    // A near twin says the same about the same people.
    const samePeople = [...i.names].every((n) => other.names.has(n));
    let topics = 0;
    for (const t of i.topics) if (other.topics.has(t)) topics++;
    // A near twin says the same about the same people: similar as a whole and sharing what it is about.
    if ((cos >= o.sameSimilarity && samePeople && topics > 0) || (i.says.size >= 2 && [...i.says].every((w) => other.says.has(w))))
      return 1;
    if (topics >= 2) return Math.max(0.8 + 0.05 * Math.min(topics - 2, 2), cos);
    if (topics === 1) {
      if (cos >= o.joinSimilarity) return 0.7;
      const telling = i.fact.entities.some((e) => other.fact.entities.includes(e) && this.name(e) !== i.speaker);
      if (telling && cos >= o.joinSimilarity - 0.2) return 0.7;
    }
    return 0;
  }

  private bestObservation(i: FactInfo): { w: Working; closest: number } | null {
    const o = this.options;
    const key = tagsKey(i.fact.tags);
    const relevant = i.relevance.score >= o.minRelevance;
    let best: { w: Working; closest: number; rank: number } | null = null;
    for (const w of this.working) {
      if (w.tagsKey !== key || !w.anchors || !intersect(w.anchors, i.anchors).size) continue;
      // One related evidence fact is enough for a small observation; a larger one needs two, so that it does not
      // drift from topic to topic one link at a time.
      let closest = 0;
      let second = 0;
      for (const item of w.items.values()) {
        const r = this.relation(i, this.info(item.fact));
        if (r > closest) [closest, second] = [r, closest];
        else if (r > second) second = r;
      }
      if (w.items.size >= 3) closest = Math.min(closest, Math.max(second, closest >= 1 ? 1 : 0));
      const facetCost = i.relevance.term && w.facet && i.relevance.term !== w.facet ? o.facetPenalty : 0;
      const rank = closest - facetCost;
      // Off the mission, a fact only joins what it repeats.
      if (rank < (relevant ? 0.7 : 1)) continue;
      if (!best || rank > best.rank) best = { w, closest, rank };
    }
    return best && { w: best.w, closest: best.closest };
  }

  /** Evidence weighted for display: relevance to the mission, plus how many other evidence facts share its topic. */
  private weighted(w: Working): EvidenceItem[] {
    const items = [...w.items.values()];
    if (items.length < 3) return items;
    return items.map((item) => {
      const mine = this.info(item.fact).topics;
      let shared = 0;
      for (const other of items) if (other !== item && [...this.info(other.fact).topics].some((t) => mine.has(t))) shared++;
      return { ...item, weight: item.weight + 0.5 * (shared / (items.length - 1)) };
    });
  }

  private take(f: Fact): void {
    const i = this.info(f);
    // Thanks, greetings and questions neither replace, join nor start anything.
    if (!i.evidence) return;
    const replaced = this.supersede(f);
    const holder = replaced.length
      ? this.working.find(
          (w) =>
            replaced.some((id) => w.items.has(id)) && w.tagsKey === tagsKey(f.tags) && w.anchors && intersect(w.anchors, i.anchors).size,
        )
      : undefined;
    if (holder) return this.update(holder, i, 'contradicted');
    // Small talk ("wow, that's great!") says too little to join or start a belief; a statement of someone's
    // attribute ("Alice lives in Berlin") says enough.
    if (i.topics.size < this.options.minTopicWords && !this.statementOf(f)) return;
    const best = this.bestObservation(i);
    if (best) {
      const latest = [...best.w.items.values()]
        .map((x) => x.fact)
        .sort(byTime)
        .map((x) => x.text);
      if (changesStory(f.text, latest)) return this.update(best.w, i, 'contradicted');
      return this.update(best.w, i, best.closest >= 1 ? 'supported' : 'refined');
    }
    // A fact about nothing in particular (no one but the speakers, no thing, no attribute) starts no belief.
    if (i.anchors.size === 0) return;
    if (this.mission.terms.length && i.relevance.score < this.options.minRelevance) return;
    this.create(i);
  }

  private create(i: FactInfo): void {
    const ref = `new-${++this.refs}`;
    const item: EvidenceItem = { fact: i.fact, role: 'supports', weight: i.relevance.score };
    const text = synthesize([item], { maxSentences: this.options.maxSentences });
    const w: Working = {
      id: ref,
      isNew: true,
      text,
      tagsKey: tagsKey(i.fact.tags),
      facet: i.relevance.term,
      entities: new Set(),
      items: new Map(),
      anchors: null,
    };
    this.addItem(w, item);
    this.working.push(w);
    this.decisions.push({ action: 'create', ref, text, supports: [i.fact.id], contradicts: [], facet: i.relevance.term ?? undefined });
  }

  private update(w: Working, i: FactInfo, reason: 'supported' | 'refined' | 'contradicted'): void {
    const role = reason === 'contradicted' ? 'contradicts' : 'supports';
    this.addItem(w, { fact: i.fact, role, weight: i.relevance.score });
    let text: string | null = null;
    if (reason !== 'supported') {
      const next = synthesize(this.weighted(w), { maxSentences: this.options.maxSentences, mustShow: i.fact.id });
      if (next && next !== w.text) text = next;
    }
    if (text === null && reason === 'refined') reason = 'supported';
    if (text !== null) w.text = text;
    this.decisions.push({
      action: 'update',
      observationId: w.id,
      text,
      reason,
      supports: role === 'supports' ? [i.fact.id] : [],
      contradicts: role === 'contradicts' ? [i.fact.id] : [],
    });
  }
}
