// Checks the LLM consolidator's reply against what the model was shown and turns it into the port's decisions.
// Strict: an id that was not shown, a decision that cites none of the new facts, facts joining an observation of
// other tags, a twin of an existing observation, a "contradiction" that drops the earlier state: each is a problem
// with its path, which the zod schema reports so the model sees it in its one corrective retry. A reply with any
// problem yields no decisions at all.
import type { z } from 'zod';
import type { ConsolidationDecision } from './consolidator.ts';
import {
  ConsolidationReplySchema,
  type ConsolidationReply,
  type ConsolidationView,
  type LlmDecision,
  type ShownFact,
  type ShownObservation,
} from './llm-prompt.ts';

export interface ReplyProblem {
  path: Array<string | number>;
  message: string;
}

export interface Interpreted {
  decisions: ConsolidationDecision[];
  problems: ReplyProblem[];
}

/** An observation a decision may name: one shown (O..) or one created earlier in the reply (N..). */
interface Target {
  /** What the port's decision names: the stored id, or the create's ref. */
  id: string;
  label: string;
  tags: string;
  text: string;
  /** Fact ids already linked as evidence (not cited again). */
  linked: Set<string>;
}

const MAX_LISTED = 40;

const tagsKey = (tags: readonly string[]): string => JSON.stringify([...tags].sort());
const tagsText = (tags: readonly string[]): string => `[${[...tags].sort().join(', ')}]`;
const same = (a: string, b: string): boolean => normalize(a) === normalize(b);

function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!?;,\s]+$/u, '');
}

function listed(aliases: string[]): string {
  if (aliases.length === 0) return 'none';
  return aliases.length <= MAX_LISTED ? aliases.join(', ') : `${aliases.slice(0, MAX_LISTED).join(', ')}, ...`;
}

/** Validates the whole reply and, when nothing is wrong, maps it to the port's decisions (stored ids, refs). */
export function interpretReply(reply: ConsolidationReply, view: ConsolidationView): Interpreted {
  return new Interpretation(view).run(reply.decisions);
}

/** The reply schema with the view's checks added: what generateObject validates (and shows the model on failure). */
export function checkedReplySchema(view: ConsolidationView): z.ZodType<ConsolidationReply> {
  return ConsolidationReplySchema.superRefine((reply, ctx) => {
    for (const p of interpretReply(reply, view).problems) ctx.addIssue({ code: 'custom', message: p.message, path: p.path });
  });
}

class Interpretation {
  private readonly problems: ReplyProblem[] = [];
  private readonly decisions: ConsolidationDecision[] = [];
  private readonly targets = new Map<string, Target>();
  private readonly created = new Map<string, Target>();
  private readonly superseded = new Set<string>();
  private readonly newAliases: string[];
  private path: Array<string | number> = [];

  constructor(private readonly view: ConsolidationView) {
    this.newAliases = view.newFacts.map((f) => f.alias);
    for (const o of view.observations) this.targets.set(o.alias, targetOf(o));
  }

  run(decisions: LlmDecision[]): Interpreted {
    const refs = new Set(decisions.flatMap((d, i) => (d.action === 'create' ? [d.ref ?? `#${i}`] : [])));
    decisions.forEach((d, i) => {
      this.path = ['decisions', i];
      if (d.action === 'support') this.support(d.observationId, d.factIds, refs);
      else if (d.action === 'update') this.update(d, refs);
      else if (d.action === 'create') this.create(d, i);
      else this.supersede(d.factId, d.by);
    });
    return this.problems.length ? { decisions: [], problems: this.problems } : { decisions: this.decisions, problems: [] };
  }

  private problem(field: string | number | Array<string | number>, message: string): void {
    this.problems.push({ path: [...this.path, ...(Array.isArray(field) ? field : [field])], message });
  }

  /** The facts named by aliases (each once), or null after reporting what was wrong. */
  private facts(aliases: string[], field: string): ShownFact[] | null {
    const found: ShownFact[] = [];
    let ok = true;
    aliases.forEach((alias, i) => {
      const shown = this.view.factsByAlias.get(alias);
      if (!shown) {
        ok = false;
        this.problem([field, i], `"${alias}" is not one of the facts shown; the facts are ${listed([...this.view.factsByAlias.keys()])}`);
      } else if (!found.includes(shown)) {
        found.push(shown);
      }
    });
    if (!ok) return null;
    if (!found.some((f) => f.isNew)) {
      this.problem(field, `cites none of the new facts (${listed(this.newAliases)}); every decision must cite at least one`);
      return null;
    }
    return found;
  }

  private target(alias: string, refs: Set<string>): Target | null {
    const t = this.targets.get(alias) ?? this.created.get(alias);
    if (t) return t;
    const shown = listed(this.view.observations.map((o) => o.alias));
    const message = refs.has(alias)
      ? `"${alias}" is created later in this reply; put its create before the decisions that name it`
      : `"${alias}" is not one of the observations shown (${shown}) nor a ref created earlier in this reply`;
    this.problem('observationId', message);
    return null;
  }

  private sameTags(facts: ShownFact[], tags: string, label: string, field: string): boolean {
    const odd = facts.find((f) => tagsKey(f.fact.tags) !== tags);
    if (!odd) return true;
    this.problem(
      field,
      `${odd.alias} has tags ${tagsText(odd.fact.tags)} but ${label} has tags ${tagsText(JSON.parse(tags) as string[])}; facts only join observations with the same tags`,
    );
    return false;
  }

  private support(alias: string, factIds: string[], refs: Set<string>): void {
    const t = this.target(alias, refs);
    const facts = this.facts(factIds, 'factIds');
    if (!t || !facts || !this.sameTags(facts, t.tags, alias, 'factIds')) return;
    const ids = this.link(t, facts);
    // Facts it already has add nothing: nothing to write.
    if (ids.length)
      this.decisions.push({ action: 'update', observationId: t.id, text: null, reason: 'supported', supports: ids, contradicts: [] });
  }

  private update(d: Extract<LlmDecision, { action: 'update' }>, refs: Set<string>): void {
    const t = this.target(d.observationId, refs);
    const facts = this.facts(d.evidence, 'evidence');
    if (!t || !facts || !this.sameTags(facts, t.tags, d.observationId, 'evidence')) return;
    if (same(d.newText, t.text)) {
      this.problem('newText', `it is the current text of ${d.observationId}; use support when the text does not change`);
      return;
    }
    if (d.kind === 'contradict') {
      const restated = facts.find((f) => same(d.newText, f.fact.text));
      if (restated) {
        this.problem(
          'newText',
          `it only restates ${restated.alias}; a contradiction keeps the earlier state: tell how it changed over time, with dates`,
        );
        return;
      }
    }
    const ids = this.link(t, facts);
    if (ids.length === 0) {
      this.problem(
        'evidence',
        `${facts.map((f) => f.alias).join(', ')} already back ${d.observationId}; cite the new facts that change it`,
      );
      return;
    }
    t.text = d.newText;
    const contradict = d.kind === 'contradict';
    this.decisions.push({
      action: 'update',
      observationId: t.id,
      text: d.newText,
      reason: contradict ? 'contradicted' : 'refined',
      supports: contradict ? [] : ids,
      contradicts: contradict ? ids : [],
    });
  }

  private create(d: Extract<LlmDecision, { action: 'create' }>, index: number): void {
    const ref = d.ref ?? null;
    if (ref !== null && (this.created.has(ref) || this.targets.has(ref) || this.view.factsByAlias.has(ref))) {
      this.problem('ref', `"${ref}" is already used; give each new observation its own ref (N1, N2, ...)`);
      return;
    }
    const facts = this.facts(d.evidence, 'evidence');
    if (!facts) return;
    const tags = tagsKey(facts[0].fact.tags);
    if (!this.sameTags(facts, tags, `${facts[0].alias} (its first evidence fact)`, 'evidence')) return;
    const twin = [...this.targets.values(), ...this.created.values()].find((t) => same(t.text, d.text));
    if (twin) {
      this.problem('text', `${twin.label} already says this; support ${twin.label} instead of creating a twin`);
      return;
    }
    const id = ref ?? `#${index}`;
    const t: Target = { id, label: ref ?? `the observation created at decisions[${index}]`, tags, text: d.text, linked: new Set() };
    if (ref !== null) this.created.set(ref, t);
    else this.targets.set(id, t);
    const facet = d.facet?.trim();
    this.decisions.push({
      action: 'create',
      ref: id,
      text: d.text,
      supports: this.link(t, facts),
      contradicts: [],
      ...(facet ? { facet } : {}),
    });
  }

  private supersede(older: string, newer: string): void {
    const facts: Array<ShownFact | null> = [older, newer].map((alias, i) => {
      const shown = this.view.factsByAlias.get(alias);
      if (!shown)
        this.problem(
          i ? 'by' : 'factId',
          `"${alias}" is not one of the facts shown; the facts are ${listed([...this.view.factsByAlias.keys()])}`,
        );
      return shown ?? null;
    });
    const [a, b] = facts;
    if (!a || !b) return;
    if (a === b) return this.problem('by', 'a fact cannot supersede itself');
    if (!a.isNew && !b.isNew)
      return this.problem('factId', `neither ${a.alias} nor ${b.alias} is a new fact; every decision must cite at least one`);
    if (a.fact.status !== 'active' || this.superseded.has(a.fact.id)) return this.problem('factId', `${a.alias} is already superseded`);
    if (tagsKey(a.fact.tags) !== tagsKey(b.fact.tags))
      return this.problem('by', `${a.alias} and ${b.alias} have different tags; only facts with the same tags supersede each other`);
    this.superseded.add(a.fact.id);
    this.decisions.push({ action: 'supersede', factId: a.fact.id, by: b.fact.id });
  }

  /** Fact ids to cite on the target: those not linked to it yet (linking twice would count twice as proof). */
  private link(t: Target, facts: ShownFact[]): string[] {
    const ids = facts.map((f) => f.fact.id).filter((id) => !t.linked.has(id));
    for (const id of ids) t.linked.add(id);
    return ids;
  }
}

function targetOf(o: ShownObservation): Target {
  const obs = o.related.observation;
  return { id: obs.id, label: o.alias, tags: tagsKey(obs.tags), text: obs.text, linked: new Set(o.related.evidence.map((e) => e.factId)) };
}
