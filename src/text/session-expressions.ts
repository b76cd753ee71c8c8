// Session expressions in a query: how people address the conversations they had with an agent ("our first
// session", "sessions 2 through 4", "last time we talked", "two sessions ago", "in our earlier chats"). Each is
// read into a reference by ordinal, counted back from the current session, every earlier session, or the current
// one; recall resolves them against the bank's sessions (recall/sessions.ts). Sessions of other people ("her first
// session with the therapist", "my first session" without "with you"), of events ("the first session of the
// conference"), technical sessions ("the previous session token") and "since our last chat" (what came after it)
// are not read: they are left to the words.

export type SessionRef =
  /** Sessions `from`..`to` by ordinal in the bank (1: the first). */
  | { kind: 'ordinal'; from: number; to: number }
  /** Sessions counted back from the current one (1: the previous session, "last time"). */
  | { kind: 'ago'; from: number; to: number }
  /** Every session before the latest ("in our earlier chats"). */
  | { kind: 'earlier' }
  /** The session in progress ("this session"). */
  | { kind: 'current' };

export interface SessionExpression {
  /** The words read, as they are in the query. */
  text: string;
  /** Where they start in the query. */
  index: number;
  ref: SessionRef;
}

const ORDINALS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
  'twentieth',
];
const CARDINALS = [
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
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];

const ORD = `(?:${ORDINALS.join('|')}|\\d{1,3}(?:st|nd|rd|th))`;
const CARD = `(?:${CARDINALS.join('|')}|\\d{1,3})`;
/** What a session is called. "talk" and "discussion" name other things too often: they count only as "our ...". */
const NOUN = '(?<noun>session|conversation|chat|talk|discussion)';
const NOUN_S = `${NOUN}s?`;
const WEAK_NOUNS = new Set(['talk', 'discussion']);
const DET = '(?:(?<det>our|the)\\s+)?';
const END = '(?![\\w-])';

function numberOf(word: string): number {
  const w = word.toLowerCase();
  const digits = /^\d+/.exec(w);
  if (digits) return Number(digits[0]);
  const ord = ORDINALS.indexOf(w);
  return ord >= 0 ? ord + 1 : CARDINALS.indexOf(w) + 1;
}

const ordinal = (from: number, to = from): SessionRef => ({ kind: 'ordinal', from: Math.min(from, to), to: Math.max(from, to) });
const ago = (from: number, to = from): SessionRef => ({ kind: 'ago', from, to });

/** Just before: someone else's ("her", "Melanie's"), or one of many ("a", "each"). "my" and "your" name a session of
 * ours only with "with you" or "with me" after ("my first session" is often therapy). */
const FOREIGN_BEFORE = /(?:\b(?:her|his|their|its|whose|a|an|each|every|per|any|which|what|how many)|['’]s)\s+$/i;
const MINE_BEFORE = /\b(?:my|your)\s+$/i;
const WITH_US_AFTER = /^\s+with\s+(?:you|me)\b/i;
/** Just after: with or between someone other than us, of something ("of the conference"). */
const FOREIGN_AFTER = /^\s+(?:(?:with|between)\s+(?!(?:you|me|us)\b)|of\s+(?!(?:ours|us)\b))/i;
/** Just after: the noun names a technical thing ("session token", "session timeout"), not a conversation. */
const MODIFIER_AFTER =
  /^\s+(?:tokens?|ids?|cookies?|keys?|timeouts?|storage|state|stores?|variables?|objects?|data|management|managers?|handlers?|middleware|length|limits?|files?|logs?|api|endpoints?|numbers?|expir\w*)\b/i;
/** Just after a session number: a quantity, not a session ("session 2 hours long"). */
const UNIT_AFTER = /^\s*(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|seconds?|secs?|times?|people|%|percent)\b/i;

interface Rule {
  pattern: RegExp;
  read(m: RegExpExecArray, text: string): SessionRef[] | null;
  /** Checks of the words around (default: not someone else's, not of something else). */
  guard?: 'none' | 'number';
}

const re = (source: string): RegExp => new RegExp(source, 'gi');

/** "we talked", "you and I spoke", "we had a chat": the two of us conversing. */
const WE_TALKED =
  '(?:that\\s+|when\\s+)?(?:we|you\\s+and\\s+i|i\\s+and\\s+you)\\s+(?:talked|spoke|chatted|met|discussed|had\\s+(?:a|our)\\s+(?:chat|talk|conversation|session)|were\\s+(?:talking|chatting))';
/** After a bare "last time": a clause that reports what one of us said. */
const SAID_AFTER =
  /^\s*,?\s*(?:i|you)\s+(?:told|said|mentioned|asked|suggested|recommended|promised|explained|shared|talked|spoke|described|gave|wanted|were\s+(?:telling|saying|asking))\b/i;

const RULES: Rule[] = [
  // "between our second and fourth sessions", "from the second to the fourth session"
  {
    pattern: re(
      `\\b(?:between|from)\\s+(?:(?:our|the)\\s+)?(?:very\\s+)?(?<a>${ORD})\\s+(?:(?:session|conversation|chat)s?\\s+)?(?:and|to|through|thru|until|till)\\s+(?:(?:our|the)\\s+)?(?<b>${ORD})\\s+${NOUN_S}${END}`,
    ),
    read: (m) => [ordinal(numberOf(m.groups!.a), numberOf(m.groups!.b))],
  },
  // "sessions 2 through 4", "sessions 2-4", "session 3", "session #5", "sessions 2 and 5"
  {
    pattern: re(`\\b${NOUN_S}\\s+#?(?<a>${CARD})(?:\\s*(?<sep>-|–|—|to|through|thru|until|till|and|&)\\s*#?(?<b>${CARD}))?${END}`),
    read: (m) => {
      const a = numberOf(m.groups!.a);
      if (!m.groups!.b) return [ordinal(a)];
      const b = numberOf(m.groups!.b);
      return /^(?:and|&)$/i.test(m.groups!.sep) ? [ordinal(a), ordinal(b)] : [ordinal(a, b)];
    },
    guard: 'number',
  },
  // "the first and third sessions"
  {
    pattern: re(`\\b${DET}(?<a>${ORD})\\s+(?:and|or|&)\\s+(?:the\\s+)?(?<b>${ORD})\\s+${NOUN}s${END}`),
    read: (m) => [ordinal(numberOf(m.groups!.a)), ordinal(numberOf(m.groups!.b))],
  },
  // "the first two sessions", "the last three chats", "the past two conversations"
  {
    pattern: re(`\\b${DET}(?<w>first|last|past|previous|prior|latest|most\\s+recent)\\s+(?<n>${CARD})\\s+${NOUN_S}${END}`),
    read: (m) => {
      const n = numberOf(m.groups!.n);
      return /^first$/i.test(m.groups!.w) ? [ordinal(1, n)] : [ago(1, n)];
    },
  },
  // "the second-to-last session", "our penultimate chat"
  {
    pattern: re(`\\b${DET}(?:second[\\s-]+to[\\s-]+last|next[\\s-]+to[\\s-]+last|penultimate)\\s+${NOUN}${END}`),
    read: () => [ago(2)],
  },
  // "the session before last"
  {
    pattern: re(`\\b${DET}${NOUN}\\s+before\\s+(?:the\\s+)?last${END}`),
    read: () => [ago(2)],
  },
  // "two sessions ago", "3 chats ago"
  {
    pattern: re(`\\b(?<n>${CARD})\\s+${NOUN_S}\\s+ago${END}`),
    read: (m) => [ago(numberOf(m.groups!.n))],
    guard: 'none',
  },
  // "our first session", "the 3rd conversation", "our very first chat"
  {
    pattern: re(`\\b${DET}(?:very\\s+)?(?<a>${ORD})\\s+${NOUN}${END}`),
    read: (m) => [ordinal(numberOf(m.groups!.a))],
  },
  // "the previous session", "our last conversation", "the most recent chat"
  {
    pattern: re(`\\b${DET}(?:very\\s+)?(?:last|previous|prior|latest|most\\s+recent|preceding)\\s+${NOUN}${END}`),
    read: () => [ago(1)],
  },
  // "in our earlier chats", "previous conversations", "an earlier session"
  {
    pattern: re(
      `\\b(?:(?:all\\s+)?(?:our|the)\\s+|all\\s+|an\\s+|one\\s+of\\s+our\\s+)?(?:earlier|previous|prior|past|older|former)\\s+${NOUN_S}${END}`,
    ),
    read: (m) => (m[0].toLowerCase().startsWith('an ') || /s$/i.test(m[0]) ? [{ kind: 'earlier' }] : null),
  },
  // "this session", "our current conversation"
  {
    pattern: re(`\\b(?:this|(?:our|the)\\s+current)\\s+(?<noun>session|conversation|chat)${END}`),
    read: () => [{ kind: 'current' }],
  },
  // "the first time we talked"
  {
    pattern: re(`\\b(?:the\\s+)?(?:very\\s+)?first\\s+time\\s+${WE_TALKED}${END}`),
    read: () => [ordinal(1)],
    guard: 'none',
  },
  // "when we last talked"
  {
    pattern: re(`\\b(?:when|where)\\s+we\\s+last\\s+(?:talked|spoke|chatted|met)${END}`),
    read: () => [ago(1)],
    guard: 'none',
  },
  // "last time", "the last time we spoke"
  {
    pattern: re(`\\b(?<det>the\\s+|that\\s+|this\\s+|a\\s+)?last\\s+time(?<we>\\s+${WE_TALKED})?${END}`),
    read: (m, text) => {
      if (m.groups!.we) return [ago(1)];
      if (m.groups!.det) return null;
      const after = text.slice(m.index + m[0].length);
      return /^\s*(?:[,.;:!?)]|$)/.test(after) || SAID_AFTER.test(after) ? [ago(1)] : null;
    },
    guard: 'none',
  },
];

/** The session expressions of a text, in the order they appear; overlapping readings keep the first rule's. */
export function parseSessionExpressions(text: string): SessionExpression[] {
  const found: SessionExpression[] = [];
  const taken: Array<[number, number]> = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (let m = rule.pattern.exec(text); m; m = rule.pattern.exec(text)) {
      const start = m.index;
      const end = start + m[0].length;
      if (taken.some(([a, b]) => start < b && end > a)) continue;
      if (!fits(rule, m, text)) continue;
      const refs = rule.read(m, text);
      if (!refs) continue;
      taken.push([start, end]);
      for (const ref of refs) found.push({ text: m[0], index: start, ref });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

function fits(rule: Rule, m: RegExpExecArray, text: string): boolean {
  const noun = m.groups?.noun?.toLowerCase();
  if (noun && WEAK_NOUNS.has(noun) && m.groups?.det?.toLowerCase() !== 'our' && !/^our\b/i.test(m[0])) return false;
  const after = text.slice(m.index + m[0].length);
  if (noun && MODIFIER_AFTER.test(after)) return false;
  const before = text.slice(Math.max(0, m.index - 24), m.index);
  // "since our last chat" asks about what came after it, not about that session: left to the words.
  if (/\bsince\s+$/i.test(before)) return false;
  if (rule.guard === 'none') return true;
  if (!m.groups?.det && FOREIGN_BEFORE.test(before)) return false;
  if (!m.groups?.det && MINE_BEFORE.test(before) && !WITH_US_AFTER.test(after)) return false;
  if (FOREIGN_AFTER.test(after)) return false;
  if (rule.guard === 'number' && UNIT_AFTER.test(after)) return false;
  return true;
}
