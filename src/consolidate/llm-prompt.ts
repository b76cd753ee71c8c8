// What the LLM consolidator shows the model and what the model must answer. The input is rendered as a view with
// short aliases (F1.. for facts, O1.. for observations; the model names its new observations N1..), which are
// cheaper to copy than stored ids and easy to check: only what the view shows may be cited. The reply is a list
// of decisions (support, update as refine or contradict, create, supersede), validated in llm-decisions.ts.
import { z } from 'zod';
import type { Fact } from '../core/index.ts';
import type { ChatMessage } from '../llm/index.ts';
import type { ConsolidationInput, RelatedObservation, RemainingEvidence } from './consolidator.ts';
import { byTime, factTime } from './synthesis.ts';

/** How much of the loaded context goes into one prompt. */
export interface PromptLimits {
  /** Related observations shown, most related first (default 20). */
  maxObservations: number;
  /** Evidence facts shown per observation: the first plus the most recent (default 6). */
  evidencePerObservation: number;
  /** Other stored facts about the same entities shown (candidates for supersession; default 20). */
  maxOtherFacts: number;
}

export const DEFAULT_PROMPT_LIMITS: PromptLimits = { maxObservations: 20, evidencePerObservation: 6, maxOtherFacts: 20 };

const ids = z.array(z.string().trim().min(1));

const Support = z.object({
  action: z.literal('support'),
  observationId: z.string().trim().min(1).describe('O.. of an observation shown, or N.. of one created earlier in this reply'),
  factIds: ids.min(1).describe('The new facts that confirm it'),
});

const Update = z.object({
  action: z.literal('update'),
  observationId: z.string().trim().min(1).describe('O.. of an observation shown, or N.. of one created earlier in this reply'),
  kind: z.enum(['refine', 'contradict']),
  newText: z.string().trim().min(1).describe('The whole new text of the observation'),
  evidence: ids.min(1).describe('The facts that refine or contradict it'),
});

const Create = z.object({
  action: z.literal('create'),
  ref: z.string().trim().min(1).nullish().describe('N1, N2, ...: lets a later decision of this reply update it'),
  text: z.string().trim().min(1),
  facet: z.string().trim().nullish().describe('The aspect of the mission it is about'),
  evidence: ids.min(1).describe('The facts it is built from'),
});

const Supersede = z.object({
  action: z.literal('supersede'),
  factId: z.string().trim().min(1).describe('The fact that is no longer true'),
  by: z.string().trim().min(1).describe('The fact that replaces it'),
});

const ByAction = z.discriminatedUnion('action', [Support, Update, Create, Supersede]);

/** What is wrong with a decision, told per field for the action it names (a plain union would only say "Invalid input"). */
function decisionProblem(input: unknown): string | undefined {
  const parsed = ByAction.safeParse(input);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((i) => (i.path.length ? `${i.message} at ${i.path.join('.')}` : i.message)).join('; ');
}

/** A plain union (anyOf in the JSON schema, which constrained decoding supports, unlike oneOf) with ByAction's messages. */
export const LlmDecisionSchema = z.union([Support, Update, Create, Supersede], { error: (issue) => decisionProblem(issue.input) });
export const ConsolidationReplySchema = z.object({ decisions: z.array(LlmDecisionSchema) });
export const ResynthesisReplySchema = z.object({ text: z.string().trim().min(1) });

export type LlmDecision = z.infer<typeof LlmDecisionSchema>;
export type ConsolidationReply = z.infer<typeof ConsolidationReplySchema>;

export interface ShownFact {
  alias: string;
  fact: Fact;
  isNew: boolean;
}

export interface ShownObservation {
  alias: string;
  related: RelatedObservation;
  /** The evidence facts shown (a window of the loaded ones, oldest first). */
  evidence: ShownFact[];
}

/** The input as the model sees it, with the aliases it may cite. */
export interface ConsolidationView {
  mission: string;
  newFacts: ShownFact[];
  observations: ShownObservation[];
  otherFacts: ShownFact[];
  /** Every fact shown, by alias. */
  factsByAlias: ReadonlyMap<string, ShownFact>;
  observationsByAlias: ReadonlyMap<string, ShownObservation>;
}

export function viewOf(input: ConsolidationInput, limits: PromptLimits = DEFAULT_PROMPT_LIMITS): ConsolidationView {
  const byId = new Map<string, ShownFact>();
  const newIds = new Set(input.facts.map((f) => f.id));
  const show = (fact: Fact): ShownFact => {
    let shown = byId.get(fact.id);
    if (!shown) {
      shown = { alias: `F${byId.size + 1}`, fact, isNew: newIds.has(fact.id) };
      byId.set(fact.id, shown);
    }
    return shown;
  };
  const newFacts = input.facts.map(show);
  const observations = input.observations.slice(0, limits.maxObservations).map((related, i) => {
    const ordered = [...related.facts].sort(byTime);
    const keep = Math.max(1, limits.evidencePerObservation);
    const window = ordered.length <= keep ? ordered : [ordered[0], ...ordered.slice(ordered.length - (keep - 1))];
    return { alias: `O${i + 1}`, related, evidence: window.map(show) };
  });
  const otherFacts = input.relatedFacts
    .filter((f) => !byId.has(f.id) && f.status === 'active')
    .slice(0, limits.maxOtherFacts)
    .map(show);
  return {
    mission: input.bank.mission.trim(),
    newFacts,
    observations,
    otherFacts,
    factsByAlias: new Map([...byId.values()].map((s) => [s.alias, s])),
    observationsByAlias: new Map(observations.map((o) => [o.alias, o])),
  };
}

const day = (iso: string): string => iso.slice(0, 10);
const tagsOf = (tags: readonly string[]): string => (tags.length ? ` [tags: ${[...tags].sort().join(', ')}]` : '');

function factLine(s: ShownFact): string {
  return `${s.alias} (${day(factTime(s.fact))})${tagsOf(s.fact.tags)}: ${s.fact.text}`;
}

function missionRule(mission: string): string {
  return mission
    ? `This memory exists for: ${mission}\nObservations serve this purpose: synthesize the patterns that matter to it, ` +
        'and leave out new facts that do not matter to it.'
    : 'The memory has no stated purpose: keep every pattern worth remembering, and leave out small talk.';
}

const RULES = [
  'Decisions, applied in order, as {"decisions": [...]}:',
  '- {"action": "support", "observationId": "O1", "factIds": ["F1"]}: the new facts confirm what the observation already says; its text stays.',
  '- {"action": "update", "observationId": "O1", "kind": "refine", "newText": "...", "evidence": ["F1"]}: the new facts add detail or nuance; write the whole new text.',
  '- {"action": "update", "observationId": "O1", "kind": "contradict", "newText": "...", "evidence": ["F1"]}: the new facts change what was true. ' +
    'The new text tells the change over time, with dates: what held before and what holds since (e.g. "... in January 2024; in March 2024 ..."). Never drop the earlier state silently.',
  '- {"action": "create", "ref": "N1", "text": "...", "facet": "...", "evidence": ["F1", "F2"]}: a new observation, only when no observation given covers this aspect. ' +
    'A later decision of this reply may update it as "N1".',
  '- {"action": "supersede", "factId": "F7", "by": "F1"}: a fact is no longer true because another one replaced it (the same attribute of the same person or thing with a new value: a move, a new job, a new price).',
  'Rules:',
  '- Prefer updating an observation given (support, refine, contradict) to creating one. One observation per facet (aspect of the purpose) of the same subject; never create a twin of an observation given.',
  '- Every decision cites at least one new fact. Cite only the ids shown here: F.. facts, O.. observations, and N.. refs created earlier in this reply. Never invent an id.',
  '- Facts only join observations with the same tags.',
  '- An observation is about one subject: one person or thing other than the speakers, or one attribute of someone (where they live, who their manager is). ' +
    'A fact joins it only when it is about that subject too; never join facts that merely share a speaker or a time. Supersede only the same attribute of the same subject.',
  '- Greetings, thanks, small talk and questions are not evidence for observations.',
  '- Write observations as plain statements in the words of the facts, with dates where time matters, and no ids in the text.',
  '- Reply with JSON only. When nothing changes, reply {"decisions": []}.',
].join('\n');

export function consolidationMessages(view: ConsolidationView): ChatMessage[] {
  const system = [
    "You consolidate an AI agent's long-term memory. Facts are single statements retained from conversations and documents; " +
      'observations are short syntheses of several facts, each backed by its evidence facts. You get new facts and the existing ' +
      'observations related to them, and decide how the observations change.',
    missionRule(view.mission),
    RULES,
  ].join('\n\n');
  const observations = view.observations.length
    ? view.observations
        .map((o) => {
          const r = o.related;
          const facet = r.observation.metadata.facet ? ` [facet: ${r.observation.metadata.facet}]` : '';
          const more = r.evidence.length > o.evidence.length ? ` (${r.evidence.length} evidence facts in all; these shown)` : '';
          const roles = new Map(r.evidence.map((e) => [e.factId, e.role]));
          const evidence = o.evidence.map(
            (s) => `    ${roles.get(s.fact.id) === 'contradicts' ? 'changed by' : 'supported by'} ${factLine(s)}`,
          );
          return [`${o.alias}${facet}${tagsOf(r.observation.tags)}: ${r.observation.text}`, `  evidence${more}:`, ...evidence].join('\n');
        })
        .join('\n')
    : '(none)';
  const user = [
    `Existing observations related to the new facts:\n${observations}`,
    ...(view.otherFacts.length
      ? [`Other stored facts about the same people and things:\n${view.otherFacts.map(factLine).join('\n')}`]
      : []),
    `New facts to consolidate (oldest first):\n${view.newFacts.map(factLine).join('\n')}`,
  ].join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** After deletions: the observation is rewritten from the evidence it has left, and nothing else. */
export function resynthesisMessages(mission: string, facet: string | null, evidence: RemainingEvidence[]): ChatMessage[] {
  const ordered = [...evidence].sort((a, b) => byTime(a.fact, b.fact));
  const lines = ordered.map(
    (e, i) => `${e.role === 'contradicts' ? 'changed by' : 'supported by'} F${i + 1} (${day(factTime(e.fact))}): ${e.fact.text}`,
  );
  const system = [
    "You rewrite one observation of an AI agent's long-term memory from its evidence facts alone: some of its facts were deleted, " +
      'and nothing they said may survive. Use only what the facts below say. When the facts tell a change over time, tell it with dates.',
    missionRule(mission.trim()),
    'Reply with JSON only: {"text": "..."} (plain statements, no ids).',
  ].join('\n\n');
  const user = `${facet ? `Facet: ${facet}\n` : ''}Evidence facts (oldest first):\n${lines.join('\n')}`;
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}
