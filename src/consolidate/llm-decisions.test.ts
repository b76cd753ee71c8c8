// The LLM consolidator's checks and mapping, on views built from real inputs: aliases map to stored ids and
// refs, every problem is reported with its path (and no decision survives a reply with one), tags never mix,
// twins and silent contradictions are refused, evidence already linked is not cited twice, and the prompt
// shows a bounded window of each observation's evidence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Bank, Evidence, Fact, Observation } from '../core/types.ts';
import type { ConsolidationInput } from './consolidator.ts';
import { checkedReplySchema, interpretReply } from './llm-decisions.ts';
import { consolidationMessages, viewOf, type ConsolidationReply } from './llm-prompt.ts';

const AT = '2024-01-01T00:00:00.000Z';

function fact(id: string, text: string, day: number, extra: Partial<Fact> = {}): Fact {
  const when = `2024-01-${String(day).padStart(2, '0')}T10:00:00.000Z`;
  return {
    id,
    bankId: 'b',
    kind: 'world',
    text,
    occurredStart: null,
    occurredEnd: null,
    mentionedAt: when,
    entities: [],
    source: null,
    speaker: null,
    metadata: {},
    tags: [],
    stance: null,
    context: null,
    status: 'active',
    validFrom: null,
    validTo: null,
    supersededBy: null,
    supersededAt: null,
    consolidatedAt: null,
    createdAt: when,
    updatedAt: when,
    ...extra,
  };
}

function observation(id: string, text: string, extra: Partial<Observation> = {}): Observation {
  return { ...fact(id, text, 1), kind: 'observation', proofCount: 1, consolidatedAt: AT, ...extra };
}

const bank: Bank = { id: 'b', name: 'b', mission: 'Track feature costs', config: {}, embedder: null, createdAt: AT, updatedAt: AT };
const support = (observationId: string, factId: string): Evidence => ({ observationId, factId, role: 'supports', createdAt: AT });

// F1, F2: new facts; O1 backed by F3 (old-1); O2 (tagged 'private') backed by F4 (old-2); F5: another stored fact.
const newA = fact('new-a', 'Search API costs ran 5x over budget.', 12);
const newB = fact('new-b', 'Alice moved to Paris.', 13);
const old1 = fact('old-1', 'Search lifted engagement by 30%.', 10, { consolidatedAt: AT });
const old2 = fact('old-2', 'Alice keeps a private diary.', 11, { tags: ['private'], consolidatedAt: AT });
const berlin = fact('berlin', 'Alice lives in Berlin.', 2, { consolidatedAt: AT });
const o1 = observation('obs-1', 'Search lifted engagement by 30%.');
const o2 = observation('obs-2', 'Alice keeps a private diary.', { tags: ['private'] });

const input: ConsolidationInput = {
  bank,
  facts: [newA, newB],
  observations: [
    { observation: o1, evidence: [support('obs-1', 'old-1')], facts: [old1] },
    { observation: o2, evidence: [support('obs-2', 'old-2')], facts: [old2] },
  ],
  relatedFacts: [berlin],
  vectors: new Map(),
  entityNames: new Map(),
  now: AT,
};
const view = viewOf(input);

const interpret = (decisions: unknown[]) => interpretReply({ decisions } as ConsolidationReply, view);
const problems = (decisions: unknown[]): string[] => interpret(decisions).problems.map((p) => `${p.path.join('.')}: ${p.message}`);

test('aliases: new facts first, then evidence, then other facts; observations in order', () => {
  assert.deepEqual(
    [...view.factsByAlias].map(([alias, s]) => [alias, s.fact.id, s.isNew]),
    [
      ['F1', 'new-a', true],
      ['F2', 'new-b', true],
      ['F3', 'old-1', false],
      ['F4', 'old-2', false],
      ['F5', 'berlin', false],
    ],
  );
  assert.deepEqual([...view.observationsByAlias.keys()], ['O1', 'O2']);
  const user = consolidationMessages(view)[1].content;
  assert.match(
    user,
    /O2 \[tags: private\]: Alice keeps a private diary\.\n {2}evidence:\n {4}supported by F4 \(2024-01-11\) \[tags: private\]: Alice keeps/,
  );
  assert.match(user, /Other stored facts about the same people and things:\nF5 \(2024-01-02\): Alice lives in Berlin\./);
  assert.match(
    user,
    /New facts to consolidate \(oldest first\):\nF1 \(2024-01-12\): Search API costs ran 5x over budget\.\nF2 \(2024-01-13\)/,
  );
  assert.match(consolidationMessages(view)[0].content, /This memory exists for: Track feature costs/);
});

test('a valid reply maps to the port: stored ids, refs, roles by kind, supersession', () => {
  const { decisions, problems } = interpret([
    {
      action: 'update',
      observationId: 'O1',
      kind: 'contradict',
      newText: 'Search lifted engagement by 30% (Jan 10), then its costs ran 5x over budget (Jan 12).',
      evidence: ['F1', 'F3'],
    },
    { action: 'create', ref: 'N1', text: 'Alice lives in Paris.', facet: 'home', evidence: ['F2', 'F5'] },
    { action: 'supersede', factId: 'F5', by: 'F2' },
    { action: 'create', text: 'Search costs ran over budget.', evidence: ['F1'] },
  ]);
  assert.deepEqual(problems, []);
  assert.deepEqual(decisions, [
    // F3 already backs O1: it is not cited again.
    {
      action: 'update',
      observationId: 'obs-1',
      text: 'Search lifted engagement by 30% (Jan 10), then its costs ran 5x over budget (Jan 12).',
      reason: 'contradicted',
      supports: [],
      contradicts: ['new-a'],
    },
    { action: 'create', ref: 'N1', text: 'Alice lives in Paris.', supports: ['new-b', 'berlin'], contradicts: [], facet: 'home' },
    { action: 'supersede', factId: 'berlin', by: 'new-b' },
    { action: 'create', ref: '#3', text: 'Search costs ran over budget.', supports: ['new-a'], contradicts: [] },
  ]);
});

test('the refine after a create in the same reply cites nothing new, so it is refused', () => {
  assert.deepEqual(
    problems([
      { action: 'create', ref: 'N1', text: 'Alice lives in Paris.', evidence: ['F2'] },
      { action: 'update', observationId: 'N1', kind: 'refine', newText: 'Alice moved from Berlin to Paris.', evidence: ['F2'] },
    ]),
    ['decisions.1.evidence: F2 already back N1; cite the new facts that change it'],
  );
});

test('support and refine keep their roles; a support of facts already linked writes nothing', () => {
  const { decisions, problems } = interpret([
    { action: 'create', ref: 'N1', text: 'Alice lives in Paris.', evidence: ['F2'] },
    { action: 'support', observationId: 'N1', factIds: ['F2'] },
    { action: 'update', observationId: 'O1', kind: 'refine', newText: 'Search lifted engagement by 30%, at a cost.', evidence: ['F1'] },
    { action: 'support', observationId: 'O1', factIds: ['F1', 'F1'] },
  ]);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    decisions.map((d) => (d.action === 'update' ? [d.reason, d.supports, d.contradicts] : [d.action])),
    [['create'], ['refined', ['new-a'], []]],
  );
});

test('invented ids, a missing new fact and a ref used before its create are problems with paths', () => {
  assert.deepEqual(
    problems([
      { action: 'support', observationId: 'O9', factIds: ['F1', 'F7'] },
      { action: 'support', observationId: 'O1', factIds: ['F3'] },
      { action: 'update', observationId: 'N2', kind: 'refine', newText: 'x', evidence: ['F1'] },
      { action: 'create', ref: 'N2', text: 'Alice lives in Paris.', evidence: ['F2'] },
      { action: 'supersede', factId: 'F5', by: 'F8' },
    ]),
    [
      'decisions.0.observationId: "O9" is not one of the observations shown (O1, O2) nor a ref created earlier in this reply',
      'decisions.0.factIds.1: "F7" is not one of the facts shown; the facts are F1, F2, F3, F4, F5',
      'decisions.1.factIds: cites none of the new facts (F1, F2); every decision must cite at least one',
      'decisions.2.observationId: "N2" is created later in this reply; put its create before the decisions that name it',
      'decisions.4.by: "F8" is not one of the facts shown; the facts are F1, F2, F3, F4, F5',
    ],
  );
  assert.deepEqual(
    interpret([
      { action: 'support', observationId: 'O9', factIds: ['F1'] },
      { action: 'support', observationId: 'O1', factIds: ['F1'] },
    ]).decisions,
    [],
    'nothing of a reply with a problem survives',
  );
});

test('tags never mix: a fact joins only observations (and facts) with the same tags', () => {
  assert.deepEqual(
    problems([
      { action: 'support', observationId: 'O2', factIds: ['F1'] },
      { action: 'create', text: 'Alice writes.', evidence: ['F2', 'F4'] },
      { action: 'supersede', factId: 'F4', by: 'F2' },
    ]),
    [
      'decisions.0.factIds: F1 has tags [] but O2 has tags [private]; facts only join observations with the same tags',
      'decisions.1.evidence: F4 has tags [private] but F2 (its first evidence fact) has tags []; facts only join observations with the same tags',
      'decisions.2.by: F4 and F2 have different tags; only facts with the same tags supersede each other',
    ],
  );
});

test('no twins, no unchanged "updates", no contradiction that drops the earlier state, no double supersession', () => {
  assert.deepEqual(
    problems([
      { action: 'create', text: 'search lifted engagement by 30%', evidence: ['F1'] },
      { action: 'update', observationId: 'O1', kind: 'refine', newText: 'Search lifted engagement by 30%.', evidence: ['F1'] },
      { action: 'update', observationId: 'O1', kind: 'contradict', newText: 'Search API costs ran 5x over budget', evidence: ['F1'] },
      { action: 'supersede', factId: 'F5', by: 'F2' },
      { action: 'supersede', factId: 'F5', by: 'F2' },
      { action: 'supersede', factId: 'F2', by: 'F2' },
    ]),
    [
      'decisions.0.text: O1 already says this; support O1 instead of creating a twin',
      'decisions.1.newText: it is the current text of O1; use support when the text does not change',
      'decisions.2.newText: it only restates F1; a contradiction keeps the earlier state: tell how it changed over time, with dates',
      'decisions.4.factId: F5 is already superseded',
      'decisions.5.by: a fact cannot supersede itself',
    ],
  );
});

test('the checked schema reports the problems where the model will see them', () => {
  const schema = checkedReplySchema(view);
  const bad = schema.safeParse({ decisions: [{ action: 'support', observationId: 'O3', factIds: ['F1'] }] });
  assert.equal(bad.success, false);
  assert.deepEqual(
    bad.error?.issues.map((i) => [i.path.join('.'), i.message]),
    [['decisions.0.observationId', '"O3" is not one of the observations shown (O1, O2) nor a ref created earlier in this reply']],
  );
  assert.equal(schema.safeParse({ decisions: [{ action: 'support', observationId: 'O1', factIds: ['F1'] }] }).success, true);
  const wrong = (decision: unknown): string[] =>
    schema.safeParse({ decisions: [decision] }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
  assert.deepEqual(wrong({ action: 'merge', observationId: 'O1' }), [
    `decisions.0: Invalid discriminator value. Expected 'support' | 'update' | 'create' | 'supersede' at action`,
  ]);
  assert.deepEqual(wrong({ action: 'update', observationId: 'O1', kind: 'contradict', evidence: ['F1'] }), [
    'decisions.0: Invalid input: expected string, received undefined at newText',
  ]);
});

test('the prompt shows a bounded window of evidence (the first and the most recent) and only those may be cited', () => {
  const many = Array.from({ length: 10 }, (_, i) => fact(`e${i}`, `Evidence number ${i}.`, i + 1, { consolidatedAt: AT }));
  const big = viewOf(
    {
      ...input,
      observations: [{ observation: o1, evidence: many.map((f) => support('obs-1', f.id)), facts: [...many].reverse() }],
      relatedFacts: [],
    },
    { maxObservations: 5, evidencePerObservation: 3, maxOtherFacts: 5 },
  );
  assert.deepEqual(
    big.observations[0].evidence.map((s) => s.fact.id),
    ['e0', 'e8', 'e9'],
  );
  assert.match(consolidationMessages(big)[1].content, /evidence \(10 evidence facts in all; these shown\)/);
  assert.equal(big.factsByAlias.size, 5);
});
