// Updated values and contradictions among a recall's candidates. Two facts from different messages that say the
// same thing (most content words shared) with different values ("the nightly build takes 25 minutes" -> "... now
// takes 40 minutes"; a deadline, a count, a version) are an update; with opposite polarity ("I deployed the API to
// AWS" / "I have never deployed this to AWS") a contradiction. What the question asks decides the order:
// - about the present (the default): the newest value goes first, the older right after it;
// - about change ("what changed", "originally", "how has ... evolved"): both, the older first, superseded facts
//   included (resolveRequest widens the filter);
// - about a contradiction ("have I ever", "is it true that"): both statements.
// Every result of a pair says so (RecallResult.change), and each carries its own time, so the caller sees which
// value is current. Offline and per query: nothing is stored, so facts never consolidated take part too.
import { sharedCount, stemSet } from '../consolidate/index.ts';
import type { Fact } from '../core/index.ts';

export type ChangeIntent = 'current' | 'history' | 'contradiction';

// A change asked about in the past ("how has it changed", "how did it change", "what changes did we make"), not how
// to make one ("how do I change", "what should I update", "the latest update"): those ask about the present.
const HISTORY =
  /\b(?:what|how)\b[^?]*\b(?:changed|evolved|updated|shifted)\b|\b(?:what|how)\b[^?]*\b(?:did|has|have|had)\b[^?]*\b(?:chang(?:e|es|ing)|evolv(?:e|es|ing)|updat(?:e|es|ing)|shift(?:s|ing)?)\b|\bwhat changes\b|\b(?:originally|initially|at first|in the beginning|used to|previous(?:ly)?|before (?:i|we|you) (?:changed|updated|moved|switched)|over time|from \S+ to \S+|both (?:the )?(?:old|original))\b/i;
const CONTRADICTION =
  /\b(?:have|had|did) (?:i|we|you) ever\b|\bis it true\b|\bcontradict|\bdid (?:i|we) (?:really|actually)\b|\bhave (?:i|we) (?:not|never)\b/i;

/** What a question asks of changing values (never null: a question is about the present unless it says otherwise). */
export function changeIntent(query: string): ChangeIntent {
  if (CONTRADICTION.test(query)) return 'contradiction';
  if (HISTORY.test(query)) return 'history';
  return 'current';
}

export interface ChangePair {
  kind: 'update' | 'contradiction';
  older: string;
  newer: string;
  /** When each was said or happened (ms). */
  olderAt: number;
  newerAt: number;
}

interface Shape {
  /** Stems of the content words that are not values. */
  frame: Set<string>;
  values: Set<string>;
  negated: boolean;
  source: string | null;
  at: number;
}

const NUMBER_WORDS = new Set([
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'twenty',
  'thirty',
  'fifty',
  'hundred',
  'thousand',
  'million',
  'half',
  'double',
  'twice',
]);
const MONTHS = /^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*$/;
const NEGATION = /\b(?:never|not|no longer|n['’]t|none|nothing)\b/i;
/** Least content words two facts share, and least share of the smaller one's, to be about the same thing. */
const MIN_SHARED = 3;
/** Least share of the two facts' words (apart from values) in common: a restatement, not a neighbouring topic. */
const MIN_JACCARD = 0.5;

/** A number with its unit or sign ("40", "200ms", "$700", "5:00", "40%", "2.5k"), a version ("v2.3.1"), a number
 * word or a month; not an identifier that holds a digit ("ec2", "s3", "utf8"). */
const NUMERIC = /^(?:\$|€|£)?\d[\d.,:/-]*(?:%|[a-z]{0,5})$|^v\d+(?:\.\d+)*$/;
const isValue = (t: string): boolean => NUMERIC.test(t) || NUMBER_WORDS.has(t) || MONTHS.test(t);

function shapeOf(f: Fact): Shape {
  const values = new Set<string>();
  const rest: string[] = [];
  for (const token of f.text.split(/[\s,;:()]+/)) {
    const t = token.toLowerCase().replace(/^[^\p{L}\p{N}$]+|[^\p{L}\p{N}%]+$/gu, '');
    if (!t) continue;
    if (isValue(t)) values.add(t);
    else rest.push(t);
  }
  return {
    frame: stemSet(rest.join(' ')),
    values,
    negated: NEGATION.test(f.text),
    source: f.source?.itemId ?? null,
    at: Date.parse(f.occurredStart ?? f.mentionedAt),
  };
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && sharedCount(a, b) === a.size;

/** How two facts relate: an update, a contradiction, or neither. */
function relation(a: Shape, b: Shape): ChangePair['kind'] | null {
  if (a.source !== null && a.source === b.source) return null;
  const shared = sharedCount(a.frame, b.frame);
  // A short statement ("The quota is 7 GB") pairs with one of exactly its words; a longer one needs MIN_SHARED.
  const short = shared >= 2 && sameSet(a.frame, b.frame);
  if ((shared < MIN_SHARED && !short) || shared / (a.frame.size + b.frame.size - shared) < MIN_JACCARD) return null;
  if (a.negated !== b.negated) return 'contradiction';
  if (a.values.size && b.values.size && !sameSet(a.values, b.values) && a.at !== b.at) return 'update';
  return null;
}

/**
 * Pairs among the facts whose first member is one of the first `anchors` (the results in view): each anchor with
 * the other facts it updates, is updated by, or contradicts, older and newer by when they happened or were said.
 */
export function changePairs(all: readonly Fact[], anchors: number): ChangePair[] {
  // What people said, not the agent's replies: an agent restates values ("with your deadline of March 1") and
  // would pair with every later change.
  const facts = all.filter((f) => f.kind === 'world');
  anchors = all.slice(0, anchors).filter((f) => f.kind === 'world').length;
  const shapes = facts.map(shapeOf);
  const pairs: ChangePair[] = [];
  // The relation is symmetric: each pair is read once, from its better ranked member (an anchor).
  for (let i = 0; i < Math.min(anchors, facts.length); i++) {
    for (let j = i + 1; j < facts.length; j++) {
      const kind = relation(shapes[i], shapes[j]);
      if (!kind) continue;
      const [older, newer] = shapes[i].at <= shapes[j].at ? [i, j] : [j, i];
      pairs.push({ kind, older: facts[older].id, newer: facts[newer].id, olderAt: shapes[older].at, newerAt: shapes[newer].at });
    }
  }
  return pairs;
}

/**
 * The ranked list ordered for the question. The facts linked by pairs with a member among the first `inView` form
 * a group (one thing stated with two values, or many: each value pairs with the others). About the present, the
 * newest of a group takes the group's best place and those that ranked above it follow, newest first (the rest
 * stay where they were); about history, the whole group stands at its best place, oldest first; about a
 * contradiction, there too, in the order they ranked. Scores are re-assigned so the list stays sorted. One pass
 * over the pairs and one over the list, however many values a thing had.
 */
export function orderChanges<T extends { id: string; score: number }>(
  ranked: T[],
  pairs: readonly ChangePair[],
  intent: ChangeIntent,
  inView: number,
): T[] {
  const position = new Map(ranked.map((r, i) => [r.id, i]));
  const time = new Map<string, number>();
  const parent = new Map<string, string>();
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r)!;
    for (let x = id; x !== r; ) {
      const next = parent.get(x)!;
      parent.set(x, r);
      x = next;
    }
    return r;
  };
  for (const p of pairs) {
    const o = position.get(p.older);
    const n = position.get(p.newer);
    if (o === undefined || n === undefined || Math.min(o, n) >= inView) continue;
    time.set(p.older, p.olderAt);
    time.set(p.newer, p.newerAt);
    for (const id of [p.older, p.newer]) if (!parent.has(id)) parent.set(id, id);
    parent.set(root(p.older), root(p.newer));
  }
  if (!parent.size) return ranked;

  // Each group's members in rank order.
  const groups = new Map<string, string[]>();
  for (const r of ranked) {
    if (!parent.has(r.id)) continue;
    const g = root(r.id);
    const members = groups.get(g);
    if (members) members.push(r.id);
    else groups.set(g, [r.id]);
  }
  const pos = (id: string): number => position.get(id)!;
  const at = (id: string): number => time.get(id)!;
  /** Newest first; of two said at once, the better ranked first. */
  const newestFirst = (a: string, b: string): number => at(b) - at(a) || pos(a) - pos(b);
  const placed = new Map<number, string[]>();
  const moved = new Set<string>();
  for (const members of groups.values()) {
    let order: string[];
    if (intent === 'current') {
      const newest = [...members].sort(newestFirst)[0];
      order = [newest, ...members.filter((id) => pos(id) < pos(newest)).sort(newestFirst)];
    } else if (intent === 'history') order = [...members].sort((a, b) => at(a) - at(b) || pos(a) - pos(b));
    else order = members;
    placed.set(pos(members[0]), order);
    for (const id of order) moved.add(id);
  }

  // The moved facts take the score of the fact that stood at their place; whatever follows keeps its order below.
  const out: T[] = [];
  ranked.forEach((r, i) => {
    const group = placed.get(i);
    if (group) group.forEach((id, k) => out.push({ ...ranked[pos(id)], score: r.score * (1 - 1e-6 * k) }));
    else if (!moved.has(r.id)) out.push(r);
  });
  for (let i = 1; i < out.length; i++) if (out[i].score > out[i - 1].score) out[i] = { ...out[i], score: out[i - 1].score * (1 - 1e-6) };
  return out;
}

/** A result's part in a pair (RecallResult.change). */
export interface ChangeLabel {
  kind: ChangePair['kind'];
  role: 'earlier' | 'later';
  with: string;
}

/**
 * Each fact's part in a pair, for the results `shown` (in order): of a fact's partners, the one shown nearest to it
 * (the caller can read both), else, none shown, one of the others (its id still names the other value).
 */
export function changeLabels(pairs: readonly ChangePair[], shown: readonly string[]): Map<string, ChangeLabel> {
  const rank = new Map(shown.map((id, i) => [id, i]));
  const best = new Map<string, { label: ChangeLabel; distance: number }>();
  const offer = (id: string, label: ChangeLabel): void => {
    const here = rank.get(id);
    if (here === undefined) return;
    const there = rank.get(label.with);
    const distance = there === undefined ? Infinity : Math.abs(there - here) + (there < here ? 0.5 : 0);
    const held = best.get(id);
    if (!held || distance < held.distance) best.set(id, { label, distance });
  };
  for (const p of pairs) {
    offer(p.older, { kind: p.kind, role: 'earlier', with: p.newer });
    offer(p.newer, { kind: p.kind, role: 'later', with: p.older });
  }
  return new Map([...best].map(([id, { label }]) => [id, label]));
}
