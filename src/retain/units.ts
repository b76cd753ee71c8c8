// The units a chunk's facts are made of, read from its markup (src/text/markup.ts):
// - prose is split into sentences (a fragment without two content words joins its neighbour, as in plain text);
// - each list item is a unit of its own (sentences inside it split again), marker and emphasis left out; an item
//   of one word joins the item before it ("Redis; Memcached");
// - each table row is a unit that reads "Header: cell; Header: cell", so a row makes sense without its table;
// - code is never a unit and never read for names by the NLP: its identifiers become keyword terms, and the
//   libraries, tools and images it names become names, of the unit just before it (the sentence introducing it),
//   else of the first unit after it; code alone in a chunk gives no unit;
// - a stack trace gives its error line as a unit, a log each line of a message the chunk had not logged yet (read
//   for times, not names), and both their identifiers as terms; a fence most of whose lines are log lines is a log;
// - headings are not units: each unit knows the heading it stands under (its section), which dates it when it says
//   no time itself ("**March 20, 2024**" over a list of moods);
// - a short lead-in ("**Redis Client Setup:**", "Handling Disconnections:") opens the unit after it rather than
//   standing alone: on its own it says nothing a memory could use, and in long technical answers such labels were an
//   eighth of all facts. A lead-in that introduces code stays a unit, as the code's identifiers are its terms.
// Inline code stays in a unit's text, but names and times are read from the text without it ("plain"); what it
// holds becomes terms, and a name when it is shaped like one (a file, socket.io) or introduced as one ("run
// `pg_dump`", "the `ioredis` package").
import {
  codeTerms,
  commandsOf,
  isCodeWord,
  isFileName,
  isKnownTool,
  isLibraryName,
  isShapedName,
  namedInCode,
  type NamedThing,
  inlineCode,
  isCodeLine,
  isLogText,
  linesOf,
  logMessage,
  scanBlocks,
  withoutEmphasis,
  withoutLogLevel,
  contentWords,
  sentencesOf,
} from '../text/index.ts';

export type UnitKind = 'sentence' | 'item' | 'row' | 'error';

export interface Unit {
  kind: UnitKind;
  /** The unit's span in the chunk. */
  start: number;
  end: number;
  /** What the unit says: markers and emphasis left out; a table row as "Header: cell; ...". */
  text: string;
  /** The text to read names and times from: inline code left out ('' when names must not be read from it). */
  plain: string;
  /** Keyword terms: identifiers of its inline code and of the code it introduces. */
  terms: string[];
  /** Things named by its inline code and by the code it introduces. */
  named: NamedThing[];
  /** The heading the unit stands under in the chunk, if any (emphasis left out). */
  section?: string;
}

interface Span {
  start: number;
  end: number;
}

/** Sentences of text[from, to) with their spans, whitespace trimmed. */
function sentenceSpans(text: string, from = 0, to = text.length): Array<Span & { text: string }> {
  const out: Array<Span & { text: string }> = [];
  // In windows (sentencesOf): the segmenter slows down more than linearly on long strings.
  for (const s of sentencesOf(text.slice(from, to))) {
    const trimmed = s.segment.trim();
    if (!trimmed) continue;
    const start = from + s.index + s.segment.indexOf(trimmed);
    out.push({ text: trimmed, start, end: start + trimmed.length });
  }
  return out;
}

/** A line that ends a sentence: terminal punctuation, perhaps inside closing quotes or brackets. */
const ENDS_SENTENCE = /[.!?]["'”’)\]]*$/;
/** A sentence ending somewhere in a text (after a letter, digit or closing mark, before a space or the end). */
const SENTENCE_END = /[\p{L}\d%)\]"'”’][.!?]["'”’)\]]*(?:\s|$)/u;
/** A break between two lines of a paragraph: one line break, perhaps indented. */
const SOFT_BREAK = /^[ \t]*\r?\n[ \t]*$/;
/** Lines that each say something of their own: a quote, a speaker's turn ("alice: ..."), a lettered item. */
const QUOTED = /^\s*>/;
const SPEAKER = /^\s*[\w.@-]{1,24}:\s/;
const LETTERED = /^\s*[a-z][.)]\s/i;
/** Narrowest width taken for a wrap (columns), and fewest words on a wrapped line. */
const WRAP_WIDTH = 40;
const WRAPPED_WORDS = 4;
/** Longest paragraph read for a wrap (lines): a chunk holds a few dozen; joining is quadratic beyond. */
const WRAPPED_LINES = 200;

/**
 * Whether a paragraph (text[from, to)) was wrapped at a fixed width by a tool, as e-mails, commit messages and
 * documents are. Its signature: three lines or more, each filled until the next line's first word would not have
 * fitted in the width of the longest, with several words each; at least half the lines that end no sentence go on
 * with a word in lower case (the sentence's next word), and some sentence ends in it. Lines written one by one (a
 * to-do list, diary entries, steps, headlines, log lines, chat) open with a capital, a number or a time, rarely fill a
 * width like that, and quotes, speakers' turns, lettered items, code and lines opening with the same word are never
 * taken for a wrap.
 */
function greedilyWrapped(text: string, from: number, to: number): boolean {
  const body = text.slice(from, to);
  if (!SENTENCE_END.test(body)) return false;
  const lines = linesOf(body).map((l) => l.text.trimEnd());
  if (lines.length < 3 || lines.length > WRAPPED_LINES) return false;
  if (lines.some((l) => !l.trim() || QUOTED.test(l) || isCodeLine(l))) return false;
  if (lines.filter((l) => SPEAKER.test(l)).length > 1 || lines.filter((l) => LETTERED.test(l)).length > 1) return false;
  const words = lines.map((l) => l.trim().split(/\s+/));
  const first = words.map((w) => w[0]);
  if (first.every((w) => w.toLowerCase() === first[0].toLowerCase())) return false;
  let width = 0;
  for (const l of lines) width = Math.max(width, l.length);
  if (width < WRAP_WIDTH) return false;
  let open = 0;
  let goesOn = 0;
  for (let i = 0; i < lines.length - 1; i++) {
    if (words[i].length < WRAPPED_WORDS || lines[i].length + 1 + first[i + 1].length <= width) return false;
    if (ENDS_SENTENCE.test(lines[i])) continue;
    open++;
    if (/^\p{Ll}/u.test(first[i + 1])) goesOn++;
  }
  return open > 0 && goesOn * 2 >= open;
}

/**
 * The sentences of a paragraph wrapped at a fixed width (greedilyWrapped), joined where the segmenter broke them at a
 * line break that only wraps ("we moved the database to the new\ncluster in Frankfurt."): one statement, read with a
 * space for the break. Any other paragraph keeps a unit per line.
 */
function joinWrapped(text: string, sentences: Array<Span & { text: string }>, from: number, to: number): Array<Span & { text: string }> {
  if (sentences.length < 2 || !greedilyWrapped(text, from, to)) return sentences;
  const out = [sentences[0]];
  for (const s of sentences.slice(1)) {
    const prev = out[out.length - 1];
    if (!ENDS_SENTENCE.test(prev.text) && SOFT_BREAK.test(text.slice(prev.end, s.start)))
      out[out.length - 1] = { start: prev.start, end: s.end, text: spanJoin(text, prev, s) };
    else out.push(s);
  }
  return out;
}

/** A fragment (fewer than two content words) joins the sentence before it; a first fragment, the one after. */
function mergeFragments<T extends Span & { text: string }>(text: string, raw: T[]): T[] {
  const out: T[] = [];
  for (const s of raw) {
    const prev = out[out.length - 1];
    if (prev && contentWords(s.text).length < 2) {
      prev.text = spanJoin(text, prev, s);
      prev.end = s.end;
    } else out.push({ ...s });
  }
  if (out.length > 1 && contentWords(out[0].text).length < 2) {
    out[1].text = spanJoin(text, out[0], out[1]);
    out[1].start = out[0].start;
    out.shift();
  }
  return out;
}

/** Two neighbouring units' texts as one, with what stands between them (a space for a line break that wraps). */
function spanJoin(text: string, a: Span & { text: string }, b: Span & { text: string }): string {
  const gap = text.slice(a.end, b.start);
  return `${a.text}${SOFT_BREAK.test(gap) ? ' ' : gap}${b.text}`;
}

/** Words after which inline code names a thing ("install `ioredis`", "run `pg_dump`"; not "use `skip`", a method). */
const INTRODUCES = /\b(?:install|installs|installing|installed|run|runs|running|via|switch(?:ed)? to|migrate(?:d)? to)\s*$/i;
/** Words before which inline code names a thing ("the `ioredis` package"). */
const NAMED_AS =
  /^\s*(?:library|libraries|package|packages|module|tool|service|command|cli|server|client|framework|plugin|extension|driver|image|container|database|db|cluster|binary|utility|sdk|crate|gem|daemon)\b/i;

/** What one inline code span gives its unit: terms always; names by shape or by the words around it. */
function readInline(code: string, before: string, after: string, into: { terms: string[]; named: NamedThing[] }): void {
  const c = code.trim();
  if (!c) return;
  into.terms.push(...codeTerms(c, 8));
  if (/\s/.test(c)) {
    // A command: what it installs, and its tool when it is a known one ("npm install ioredis", "kubectl get pods").
    if (/[(){};=<>]/.test(c)) return;
    into.named.push(...namedInCode(c));
    for (const tool of commandsOf(c)) if (isKnownTool(tool)) into.named.push({ name: tool, type: 'software' });
    return;
  }
  const word = c.replace(/[.,:;]+$/, '');
  if (isFileName(word)) into.named.push({ name: word, type: 'file' });
  else if (isLibraryName(word) || isKnownTool(word)) into.named.push({ name: word, type: 'software' });
  else if (
    /^@?[A-Za-z][\w-]*(?:\/[\w.-]+)?$/.test(word) &&
    !isCodeWord(word) &&
    !/^[a-z]+[A-Z]/.test(word) &&
    !/^[A-Z0-9]+_[A-Z0-9_]+$/.test(word) &&
    (INTRODUCES.test(before) || NAMED_AS.test(after))
  )
    into.named.push({ name: word, type: 'software' });
}

interface Draft extends Span {
  kind: UnitKind;
  section?: string;
  text: string;
  /** Set for units whose plain text is not the span's own text with inline code left out. */
  plain?: string;
  terms: string[];
  named: NamedThing[];
}

/** A label opening a unit: "**Error Handling**: ...", "**Note:** ...". */
const LABEL = /^(\s*)(\*\*)([^*\n]{1,80}?)(:?)\2(\s*:?)/;

/** A label read as a sentence of its own, its words after the first in lower case unless shaped like names
 * ("Check MongoDB configuration."), so neither its title-case words nor the word after it pass for names. */
function quietLabel(_: string, space: string, _mark: string, label: string): string {
  return `${space}${quiet(label)}.`;
}

/** Title-case words after the first in lower case, unless shaped like names ("Check MongoDB configuration"). */
function quiet(title: string): string {
  return title
    .split(/(\s+)/)
    .map((w, i) => (i === 0 || isShapedName(w) ? w : w.toLowerCase()))
    .join('');
}

/** The unit's text (emphasis left out), its plain text, and what its inline code gives it. */
function finish(text: string, d: Draft): Unit {
  const spans = d.kind === 'row' || !text.includes('`') ? [] : inlineCode(text, d.start, d.end);
  let plain = '';
  let at = d.start;
  for (const s of spans) {
    plain += text.slice(at, s.start);
    at = s.end;
    readInline(
      text.slice(s.code.start, s.code.end),
      text.slice(Math.max(d.start, s.start - 24), s.start),
      text.slice(s.end, s.end + 24),
      d,
    );
  }
  plain += text.slice(at, d.end);
  return {
    kind: d.kind,
    start: d.start,
    end: d.end,
    text: withoutEmphasis(d.text),
    // Inline code opening a unit as its label ("`ready`: Emitted when ...") leaves a colon that is not a sentence's.
    plain: d.plain ?? (d.kind === 'error' ? '' : withoutEmphasis(plain.replace(LABEL, quietLabel).replace(/^\s*[:–—-]\s+/, ''))),
    terms: [...new Set(d.terms)],
    named: dedupe(d.named),
    ...(d.section ? { section: d.section } : {}),
  };
}

function dedupe(named: NamedThing[]): NamedThing[] {
  const seen = new Map<string, NamedThing>();
  for (const n of named) if (!seen.has(n.name.toLowerCase())) seen.set(n.name.toLowerCase(), n);
  return [...seen.values()];
}

/** Sentences of a block joined where the segmenter broke inside inline code ("`curl http://x/?EIO=4`"). */
function joinAcrossCode(text: string, sentences: Array<Span & { text: string }>, from: number, to: number): Array<Span & { text: string }> {
  if (sentences.length < 2 || !text.includes('`')) return sentences;
  const spans = inlineCode(text, from, to);
  if (spans.length === 0) return sentences;
  const out = [sentences[0]];
  for (const s of sentences.slice(1)) {
    const prev = out[out.length - 1];
    if (spans.some((c) => c.start < s.start && s.start < c.end)) {
      prev.end = s.end;
      prev.text = text.slice(prev.start, prev.end);
    } else out.push(s);
  }
  return out;
}

const draft = (kind: UnitKind, s: Span & { text: string }): Draft => ({
  kind,
  start: s.start,
  end: s.end,
  text: s.text,
  terms: [],
  named: [],
});

/** A table row as a unit: each cell after its column's header; names read from the cells alone, each as the start of
 * a sentence (a capitalised header or first word is not taken for a name). */
function rowDraft(header: string[], row: Span & { cells: string[] }): Draft | null {
  const parts: string[] = [];
  const cells: string[] = [];
  const into = { terms: [] as string[], named: [] as NamedThing[] };
  row.cells.forEach((cell, i) => {
    if (!cell) return;
    const head = header[i]?.trim();
    parts.push(head ? `${head}: ${cell}` : cell);
    const plain = cell.replace(/`([^`]*)`/g, (_, code: string) => {
      readInline(code, head ?? '', '', into);
      return '';
    });
    cells.push(quiet(plain));
  });
  if (parts.length === 0) return null;
  return { kind: 'row', start: row.start, end: row.end, text: parts.join('; '), plain: withoutEmphasis(cells.join('. ')), ...into };
}

const ERROR_LINE = /Error|Exception|ERR!|FATAL|ERROR|CRITICAL|Traceback/;
/** The line opening a Python traceback: the error line is the one after its frames. */
const TRACE_HEADER = /^Traceback \(most recent call last\):/;

/** The sentences of a text, read once, handed out block by block. The segmenter always breaks after a line break,
 * and blocks start at line starts, so no sentence spans two blocks; a list item's sentence starts after its marker. */
class Sentences {
  private all: Array<Span & { text: string }> | null = null;
  private next = 0;

  constructor(private readonly text: string) {}

  in(from: number, to: number): Array<Span & { text: string }> {
    const all = (this.all ??= sentenceSpans(this.text));
    while (this.next < all.length && all[this.next].end <= from) this.next++;
    const out: Array<Span & { text: string }> = [];
    for (let k = this.next; k < all.length && all[k].start < to; k++) {
      const start = Math.max(all[k].start, from);
      const end = Math.min(all[k].end, to);
      const raw = this.text.slice(start, end);
      const t = raw.trim();
      if (!t) continue;
      const at = start + raw.indexOf(t);
      out.push({ start: at, end: at + t.length, text: t });
    }
    return joinAcrossCode(this.text, out, from, to);
  }
}

/** The units of a chunk, in order. */
export function unitsOf(text: string): Unit[] {
  const blocks = scanBlocks(text);
  if (blocks.length === 1 && blocks[0].kind === 'prose' && !/[`*]/.test(text)) {
    // Plain prose (most conversation turns): its sentences, with nothing to leave out of them.
    return mergeFragments(text, joinWrapped(text, sentenceSpans(text), 0, text.length))
      .filter(says)
      .map((s) => ({ kind: 'sentence', ...s, plain: s.text, terms: [], named: [] }));
  }
  const sentences = new Sentences(text);
  const units: Draft[] = [];
  /** The code met before any unit: it goes to the first unit. */
  let carried: { terms: string[]; named: NamedThing[] } | null = null;
  /** Sentences of the current run of paragraphs (fragments merge across them, as in plain text). */
  let prose: Draft[] = [];
  let lastItem: Draft | null = null;
  let section: string | undefined;
  /** The messages of the log lines read so far (see the 'trace' case). */
  const messages = new Set<string>();
  const push = (d: Draft): void => {
    if (section) d.section = section;
    if (carried) {
      d.terms.unshift(...carried.terms);
      d.named.unshift(...carried.named);
      carried = null;
    }
    units.push(d);
  };
  const flushProse = (): void => {
    for (const d of mergeFragments(text, prose)) push(d);
    prose = [];
  };
  /** Units that introduce code (their lead-ins are kept whole: the code's terms are theirs). */
  const introducing = new Set<Draft>();
  const attach = (terms: string[], named: NamedThing[]): void => {
    const unit = units.at(-1);
    if (unit) introducing.add(unit);
    const last = unit ?? (carried ??= { terms: [], named: [] });
    last.terms.push(...terms);
    last.named.push(...named);
  };
  /** The units of a stack trace or a log (see the 'trace' case). */
  const traceUnits = (span: Span): void => {
    // A stack trace's error line (the first at the block's own indent that names an error: the frames and the code
    // quoted under them are indented); and each line of a log whose message the chunk has not logged before (a
    // retry logged a thousand times is one fact), unless it holds nothing but a stamp and a level. The frames are
    // terms only.
    const lines = linesOf(text.slice(span.start, span.end)).flatMap((l) => {
      const line = l.text.trim();
      return line ? [{ line, start: span.start + l.start + l.text.indexOf(line), indent: l.text.length - l.text.trimStart().length }] : [];
    });
    const blockIndent = Math.min(...lines.map((l) => l.indent));
    let errorFound = false;
    for (const { line, start, indent } of lines) {
      const message = logMessage(line);
      if (message !== null ? messages.has(message) : errorFound) continue;
      if (!WORDED.test(withoutLogLevel(message ?? line))) continue;
      const isError = indent === blockIndent && ERROR_LINE.test(line) && !TRACE_HEADER.test(line);
      if (message === null && !isError) continue;
      if (message !== null) messages.add(message);
      errorFound ||= isError;
      push(draft('error', { start, end: start + line.length, text: line }));
    }
  };

  for (const b of blocks) {
    if (b.kind !== 'prose') flushProse();
    if (b.kind !== 'list-item') lastItem = null;
    switch (b.kind) {
      case 'prose':
        prose.push(...joinWrapped(text, sentences.in(b.body.start, b.body.end), b.body.start, b.body.end).map((s) => draft('sentence', s)));
        break;
      case 'list-item': {
        const parts = mergeFragments(
          text,
          sentences.in(b.body.start, b.body.end).map((s) => draft('item', s)),
        ).filter(says);
        if (parts.length === 0) break;
        const whole = text.slice(b.body.start, b.body.end);
        if (lastItem && parts.length === 1 && contentWords(whole).length < 2) {
          // A one-word item ("- Redis") joins the item before it.
          lastItem.text = `${lastItem.text}; ${parts[0].text}`;
          lastItem.end = parts[0].end;
          break;
        }
        for (const s of parts) push(s);
        lastItem = parts.at(-1)!;
        break;
      }
      case 'table': {
        const [header, ...rows] = b.rows ?? [];
        for (const row of rows) {
          const d = header ? rowDraft(header.cells, row) : null;
          if (d) push(d);
        }
        break;
      }
      case 'code': {
        const body = text.slice(b.body.start, b.body.end);
        attach([...(b.lang ? [b.lang] : []), ...codeTerms(body)], namedInCode(body, b.lang));
        // A log pasted in a fence (most are) gives its lines as a log does; other code is never a unit.
        if (isLogText(body)) traceUnits(b.body);
        break;
      }
      case 'trace':
        traceUnits(b.body);
        attach(codeTerms(text.slice(b.body.start, b.body.end)), []);
        break;
      case 'heading':
        section = withoutEmphasis(text.slice(b.body.start, b.body.end)).trim() || undefined;
        break;
    }
  }
  flushProse();
  return withLeadIns(units.filter(says).map((d) => [finish(text, d), introducing.has(d)] as const));
}

/** A unit with a letter or a digit in it, beside a list marker: "...", "::", "!!" or "1." alone say nothing a fact
 * could hold. */
const says = (u: { text: string }): boolean => WORDED.test(u.text.replace(/(?<!\S)(?:\d{1,3}|[a-z])[.)](?!\S)/gi, ''));
/** A letter or a digit: what a line or a unit needs to say anything. */
const WORDED = /[\p{L}\p{N}]/u;

/** Most content words a lead-in has: beyond that, a line ending in a colon says something of its own. */
const LEAD_IN_WORDS = 5;

/** A label ending in a colon, short, that introduces no code. */
const isLeadIn = (u: Unit, introducesCode: boolean): boolean =>
  !introducesCode && u.kind !== 'error' && u.text.trimEnd().endsWith(':') && contentWords(u.text).length <= LEAD_IN_WORDS;

/** Each lead-in joined to the unit after it ("Redis client setup: Use ioredis ..."): its span, text, terms and names
 * go first; the unit keeps its kind and its section. A lead-in with no unit after it under the same heading, before an
 * error line (which stands as logged, never read for names) or before another lead-in stays alone. */
function withLeadIns(units: ReadonlyArray<readonly [Unit, boolean]>): Unit[] {
  const out: Unit[] = [];
  let lead: Unit | null = null;
  for (const [u, introducesCode] of units) {
    const leadIn = isLeadIn(u, introducesCode);
    // Lead-ins never pile up (a run of labels would otherwise grow one text label by label): the nearest one opens
    // the unit, the others stay alone.
    if (lead && (leadIn || u.kind === 'error' || u.section !== lead.section)) {
      out.push(lead);
      lead = null;
    }
    if (leadIn) lead = u;
    else {
      out.push(lead ? joined(lead, u) : u);
      lead = null;
    }
  }
  if (lead) out.push(lead);
  return out;
}

/** The unit opened by the lead-in: the lead-in's span, text, terms and names first. */
const joined = (lead: Unit, u: Unit): Unit => ({
  ...u,
  start: lead.start,
  text: `${lead.text.trim()} ${u.text}`,
  plain: `${lead.plain.trim()} ${u.plain}`,
  terms: [...new Set([...lead.terms, ...u.terms])],
  named: dedupe([...lead.named, ...u.named]),
});
