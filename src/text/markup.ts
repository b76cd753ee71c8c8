// Finds the markdown-ish structure of a message, line by line: fenced code (``` and ~~~, with a language),
// indented code, code pasted without fences, stack traces and log lines, tables, list items, headings and
// prose paragraphs, each with its span; and the inline code spans of a stretch of prose. Extraction and
// chunking read it so that code is never split into sentences or mined for names. Written by hand rather
// than with a markdown parser: chat messages are loose markdown (a fence right after a sentence, chunks
// that start or end inside a code block) and what is needed is spans, fast, on every retained chunk.

export type BlockKind = 'prose' | 'heading' | 'list-item' | 'table' | 'code' | 'trace';

export interface Span {
  start: number;
  end: number;
}

export interface Block extends Span {
  kind: BlockKind;
  /** What the block says: a heading's or list item's text without its marker, a code block's lines
   * between its fences, a paragraph's text; for a table, the whole table. */
  body: Span;
  /** A fenced code block's language, lower-cased, when its fence names one. */
  lang?: string;
  /** A table's rows (the header first, the delimiter row left out): each row's span and its cells. */
  rows?: Array<Span & { cells: string[] }>;
}

export interface Line {
  start: number;
  end: number;
  text: string;
}

/** The lines of a text with their spans (a line's \r left out). */
export function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const lineEnd = end > start && text[end - 1] === '\r' ? end - 1 : end;
    out.push({ start, end: lineEnd, text: text.slice(start, lineEnd) });
    if (nl < 0) break;
    start = nl + 1;
  }
  return out;
}

/** A fence line; chat answers indent fences inside list items, so any indentation. */
const FENCE = /^([ \t]*)(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
/** A line that is only bold text (an optional colon after it), the heading of many chat answers. */
const BOLD_HEADING = /^ {0,3}(\*\*)([^*\n]+?)\1:?[ \t]*$/;
const LIST_ITEM = /^([ \t]*)([-*+•]|\d{1,3}[.)])[ \t]+(?=\S)/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)+\|?[ \t]*$|^[ \t]*\|[ \t]*:?-{2,}:?[ \t]*\|[ \t]*$/;
const RULE = /^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$/;
const BLANK = /^[ \t]*$/;
/** Lines longer than this are prose to every test but the fence's: some patterns below take time that grows with the
 * square of a line's length, and no heading, list item, trace or code line worth telling apart is that long. */
const LONG_LINE = 2_000;

/** A log's levels, as a line names them after its timestamp (if any). */
const LOG_LEVELS = 'INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL|ERR!';
/** A log line: it starts with a timestamp or a level. */
const LOG_LINE = new RegExp(
  [
    /^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?/.source,
    `^\\s*\\[?(?:${LOG_LEVELS})\\]?(?::|\\s+[-\\w[(])`,
    /^\s*npm ERR!/.source,
  ].join('|'),
);
/** A log line's leading timestamp: lines differing only in it log the same message. */
const LOG_STAMP = /^\[?\d{4}-\d{2}-\d{2}[T ][\d:.,]+(?:Z|[+-]\d{2}:?\d{2})?\]?\s*/;
/** A log line's level, after its timestamp. */
const LOG_LEVEL = new RegExp(`^\\[?(?:${LOG_LEVELS})\\]?:?\\s*`);

/** Lines of stack traces and logs: "at f (file.js:3:9)", "Traceback ...", `File "x.py", line 3`, an error class
 * and its message, a timestamp or a level at the start of the line. */
const TRACE_LINE = new RegExp(
  [
    /^\s+at\s+\S.*(?:\(.*:\d+(?::\d+)?\)|:\d+:\d+|\(native\)|<anonymous>)\s*$/.source,
    /^\s*Traceback \(most recent call last\):/.source,
    /^\s+File ".*", line \d+/.source,
    /^\s*(?:Caused by:|Uncaught )?(?:[A-Za-z_$][\w$]*\.)*(?:[A-Z][\w$]*)?(?:Error|Exception|Warning)\b(?::|\s*\[)/.source,
    LOG_LINE.source,
  ].join('|'),
);

/** Whether a line reads as a line of a log (a timestamp or a level first). */
export const isLogLine = (line: string): boolean => line.length <= LONG_LINE && LOG_LINE.test(line);

/** A log line's message: the (trimmed) line without its timestamp; null when the line is no log line. */
export const logMessage = (line: string): string | null => (isLogLine(line) ? line.replace(LOG_STAMP, '') : null);

/** Text without the log level it starts with. */
export const withoutLogLevel = (text: string): string => text.replace(LOG_LEVEL, '');

/** Whether a block of lines (a fenced one) is a log: most of its lines are log lines. */
export function isLogText(body: string): boolean {
  const lines = linesOf(body)
    .map((l) => l.text.trim())
    .filter(Boolean);
  return lines.length > 0 && lines.filter(isLogLine).length * 2 > lines.length;
}

/** Whether a line reads as code rather than prose: it ends in ; { } or an opening bracket (not a ":(" face), starts with a closing
 * bracket, a comment, a tag, a declaration or an import, is a bare call, or holds operators prose does not use.
 * Keywords count only with the syntax that follows them in code ("let x =", not "let me know"). */
const CODE_LINE = new RegExp(
  [
    /(?:[;{}]|(?<![:;=8])[[(])\s*$/.source,
    /^\s*[}\])]/.source,
    /^\s*(?:\/\/|\/\*|\*\/|#!|<\/?[A-Za-z][\w.-]*[\s/>])/.source,
    /^\s*(?:const|let|var)\s+[\w${}[\],\s]+[=:;]/.source,
    /^\s*(?:export\s+)?(?:async\s+)?(?:function\s*\*?\s*[\w$]*\s*\(|def\s+\w+\s*\()/.source,
    /^\s*class\s+\w+.*[({:]\s*$/.source,
    /^\s*(?:export\s+(?:default|const|let|function|class|async|type|interface)\b|module\.exports|#include\b|#define\b)/.source,
    /^\s*import\s+(?:[\w*{$][^'"]*\s+from\s+)?['"]/.source,
    /^\s*(?:from\s+[\w.]+\s+import\s+[\w*(]|import\s+[\w.]+(?:\s+as\s+\w+)?\s*$)/.source,
    /^\s*(?:elif\s.*|except\b.*|try|else|finally)\s*:\s*$/.source,
    /^\s*(?:if|for|while|switch|catch|with)\s*\(.*\)\s*[{:]?\s*$/.source,
    /^\s*(?:SELECT\s.*\bFROM\b|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(?:TABLE|INDEX|DATABASE|EXTENSION|UNIQUE)|ALTER\s+TABLE|DROP\s+TABLE)\b/
      .source,
    /^\s*await\s+[\w$.]+\(/.source,
    /^\s*@[A-Za-z]\w*(?:\(.*\))?\s*$/.source,
    /=>|===|!==|\+=|-=|&&|\|\||\S::|::\S/.source,
    /^\s*[\w$.[\]'"]+\s*=\s*[^=\s]/.source,
    /^\s*[\w$.]+\([^()]*\)(?:\.[\w$]+\([^()]*\))*;?\s*$/.source,
    /^\s*\$ \S/.source,
  ].join('|'),
);

const INLINE_CODE = /`[^`\n]*`/g;

const isTraceLine = (line: string): boolean => line.length <= LONG_LINE && TRACE_LINE.test(line);
const isHeading = (line: string): boolean => line.length <= LONG_LINE && (HEADING.test(line) || BOLD_HEADING.test(line));

/** Whether a line reads as code (see CODE_LINE; inline code spans in it do not count); a list item or heading
 * never does. */
export function isCodeLine(line: string): boolean {
  if (line.length > LONG_LINE || BLANK.test(line) || isHeading(line) || (LIST_ITEM.test(line) && !/^\s*[-*+]\s*\d/.test(line)))
    return false;
  return CODE_LINE.test(line.includes('`') ? line.replace(INLINE_CODE, 'x') : line);
}

const indentOf = (line: string): number => {
  let n = 0;
  for (const c of line) {
    if (c === ' ') n++;
    else if (c === '\t') n += 4;
    else break;
  }
  return n;
};

function tableCells(line: string): string[] {
  let t = line.trim();
  if (t.startsWith('|')) t = t.slice(1);
  if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
  return t.split(/(?<!\\)\|/).map((c) => c.trim());
}

/** Whether the text before the first fence reads as the end of a code block (a chunk cut inside one): the fences are
 * unbalanced, the first is bare, the text opens with a code line and at least half its lines are code. */
function startsInsideCode(lines: Line[], fenceAt: number): boolean {
  if (FENCE.exec(lines[fenceAt].text)![3] !== '') return false;
  if (lines.filter((l) => FENCE.test(l.text)).length % 2 === 0) return false;
  const before = lines.slice(0, fenceAt).filter((l) => !BLANK.test(l.text));
  if (before.length === 0 || !isCodeLine(before[0].text)) return false;
  return before.filter((l) => isCodeLine(l.text)).length * 2 >= before.length;
}

/** Languages of fenced blocks that may hold prose rather than code. */
const PROSE_LANGS = new Set(['', 'text', 'txt', 'plain', 'plaintext', 'markdown', 'md']);
/** Three lower-case words in a row, one space apart: a line of prose (tried at word starts only). */
const PROSE_RUN = /(?<!\p{Ll})\p{Ll}{2,} \p{Ll}{2,} \p{Ll}/u;

/** Whether the lines of a fenced block read as prose: at least half of them hold a run of words, under a quarter are
 * code, trace or log lines. */
function readsAsProse(lines: Line[]): boolean {
  let all = 0;
  let prose = 0;
  let code = 0;
  for (const l of lines) {
    if (BLANK.test(l.text)) continue;
    all++;
    if (isCodeLine(l.text) || isTraceLine(l.text)) code++;
    else if (PROSE_RUN.test(l.text)) prose++;
  }
  return all > 0 && prose * 2 >= all && code * 4 < all;
}

/** The blocks of a text, in order; blank lines and horizontal rules belong to none. */
export function scanBlocks(text: string): Block[] {
  const lines = linesOf(text);
  const blocks: Block[] = [];
  let first = 0;
  // A text cut from inside a fenced block (a chunk of a long message) starts with code and a bare closing fence.
  const firstFence = lines.findIndex((l) => FENCE.test(l.text));
  if (firstFence > 0 && startsInsideCode(lines, firstFence)) {
    const close = lines[firstFence];
    blocks.push({ kind: 'code', start: lines[0].start, end: close.end, body: { start: lines[0].start, end: close.start } });
    first = firstFence + 1;
  }
  const scan = (from: number, to: number): void => {
    let i = from;
    while (i < to) {
      const line = lines[i];
      const t = line.text;
      if (BLANK.test(t)) {
        i++;
        continue;
      }
      const fence = FENCE.exec(t);
      if (fence) {
        const mark = fence[2];
        const closing = new RegExp(`^[ \\t]*${mark[0] === '`' ? '`' : '~'}{${mark.length},}[ \\t]*$`);
        let j = i + 1;
        while (j < to && !closing.test(lines[j].text)) j++;
        const closed = j < to;
        if (PROSE_LANGS.has(fence[3].toLowerCase()) && readsAsProse(lines.slice(i + 1, j))) {
          // A letter, a journal entry or a template put in a fence: prose, read as such.
          scan(i + 1, j);
          i = closed ? j + 1 : to;
          continue;
        }
        const bodyStart = i + 1 < to ? lines[i + 1].start : line.end;
        const bodyEnd = closed ? lines[j].start : text.length;
        blocks.push({
          kind: 'code',
          start: line.start,
          end: closed ? lines[j].end : text.length,
          body: { start: Math.min(bodyStart, bodyEnd), end: bodyEnd },
          ...(fence[3] ? { lang: fence[3].toLowerCase().replace(/^\{?\.?|\}$/g, '') } : {}),
        });
        i = closed ? j + 1 : to;
        continue;
      }
      const long = t.length > LONG_LINE;
      const heading = long ? null : (HEADING.exec(t) ?? BOLD_HEADING.exec(t));
      if (heading) {
        const at = line.start + t.indexOf(heading[2]);
        blocks.push({ kind: 'heading', start: line.start, end: line.end, body: { start: at, end: at + heading[2].length } });
        i++;
        continue;
      }
      if (!long && RULE.test(t)) {
        i++;
        continue;
      }
      if (!long && t.includes('|') && i + 1 < to && TABLE_DELIMITER.test(lines[i + 1].text)) {
        const rows: Array<Span & { cells: string[] }> = [{ start: line.start, end: line.end, cells: tableCells(t) }];
        let j = i + 2;
        for (; j < to && lines[j].text.includes('|') && !BLANK.test(lines[j].text); j++)
          rows.push({ start: lines[j].start, end: lines[j].end, cells: tableCells(lines[j].text) });
        const end = lines[j - 1].end;
        blocks.push({ kind: 'table', start: line.start, end, body: { start: line.start, end }, rows });
        i = j;
        continue;
      }
      if (isTraceLine(t)) {
        let j = i + 1;
        while (
          j < to &&
          !BLANK.test(lines[j].text) &&
          (isTraceLine(lines[j].text) || indentOf(lines[j].text) >= 2 || /^\s*[}\])]/.test(lines[j].text))
        )
          j++;
        blocks.push({ kind: 'trace', start: line.start, end: lines[j - 1].end, body: { start: line.start, end: lines[j - 1].end } });
        i = j;
        continue;
      }
      const item = long ? null : LIST_ITEM.exec(t);
      if (item && !isCodeLine(t.slice(item[0].length))) {
        // The item's text: its line after the marker and the lines indented under it (not a nested item).
        const column = indentOf(item[1]) + 2;
        let j = i + 1;
        while (j < to) {
          const next = lines[j].text;
          if (BLANK.test(next) || LIST_ITEM.test(next) || FENCE.test(next) || indentOf(next) < column) break;
          j++;
        }
        blocks.push({
          kind: 'list-item',
          start: line.start,
          end: lines[j - 1].end,
          body: { start: line.start + item[0].length, end: lines[j - 1].end },
        });
        i = j;
        continue;
      }
      const previous = blocks.at(-1);
      const afterBreak = i === 0 || BLANK.test(lines[i - 1].text);
      if (!long && indentOf(t) >= 4 && afterBreak && previous?.kind !== 'list-item') {
        // Indented code: lines indented four or more, blank lines between them.
        let j = i + 1;
        let last = i;
        for (; j < to; j++) {
          if (BLANK.test(lines[j].text)) continue;
          if (indentOf(lines[j].text) < 4) break;
          last = j;
        }
        blocks.push({ kind: 'code', start: line.start, end: lines[last].end, body: { start: line.start, end: lines[last].end } });
        i = last + 1;
        continue;
      }
      if (i + 1 < to && isCodeLine(t)) {
        // Code pasted without fences: two or more code lines (indented lines and single blank lines may sit between).
        let last = i;
        let j = i + 1;
        let codeLines = 1;
        for (; j < to; j++) {
          const next = lines[j].text;
          if (BLANK.test(next)) {
            if (j + 1 < to && isCodeLine(lines[j + 1].text)) continue;
            break;
          }
          if (FENCE.test(next) || isHeading(next)) break;
          if (isCodeLine(next)) codeLines++;
          else if (indentOf(next) < 2) break;
          last = j;
        }
        if (codeLines >= 2) {
          blocks.push({ kind: 'code', start: line.start, end: lines[last].end, body: { start: line.start, end: lines[last].end } });
          i = last + 1;
          continue;
        }
      }
      // Prose: this line and the lines after it that start no other block.
      let j = i + 1;
      while (j < to && !startsBlock(lines, j)) j++;
      blocks.push({ kind: 'prose', start: line.start, end: lines[j - 1].end, body: { start: line.start, end: lines[j - 1].end } });
      i = j;
    }
  };
  scan(first, lines.length);
  return blocks;
}

/** Whether line j ends a paragraph: it is blank or opens another kind of block. */
function startsBlock(lines: Line[], j: number): boolean {
  const t = lines[j].text;
  if (BLANK.test(t) || FENCE.test(t)) return true;
  if (t.length > LONG_LINE) return false;
  if (isHeading(t) || RULE.test(t) || isTraceLine(t) || LIST_ITEM.test(t)) return true;
  if (t.includes('|') && j + 1 < lines.length && TABLE_DELIMITER.test(lines[j + 1].text)) return true;
  return isCodeLine(t) && j + 1 < lines.length && isCodeLine(lines[j + 1].text);
}

/** The spans of the blocks that hold code, traces or tables: text that must not be split like prose. */
export function codeSpans(text: string): Span[] {
  return scanBlocks(text)
    .filter((b) => b.kind === 'code' || b.kind === 'trace' || b.kind === 'table')
    .map((b) => ({ start: b.start, end: b.end }));
}

/** Inline code spans (`x`, ``x``) in text[start, end), each with the span of its content. */
export function inlineCode(text: string, start = 0, end = text.length): Array<Span & { code: Span }> {
  const out: Array<Span & { code: Span }> = [];
  const re = /(`+)([^`\n]|[^`\n][^\n]*?[^`\n])\1(?!`)/g;
  re.lastIndex = start;
  for (let m = re.exec(text); m && m.index < end; m = re.exec(text)) {
    const e = m.index + m[0].length;
    if (e > end) break;
    const open = m[1].length;
    out.push({ start: m.index, end: e, code: { start: m.index + open, end: e - open } });
  }
  return out;
}

/** Text without markdown emphasis markers (**bold**, *italic*; __x__ stays, a Python name more often than bold). */
export function withoutEmphasis(text: string): string {
  if (!text.includes('*')) return text;
  return text.replace(/\*\*(?=\S)([^\n]*?\S)\*\*/g, '$1').replace(/(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])/g, '$1');
}
