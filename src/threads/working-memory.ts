// Working memory: one markdown document per resource or thread, started from a template. Notes are bullets
// under `##` sections; `remember` appends to Notes; the offline updater files lasting first-person statements
// of the user (profile, preferences, goals) under their section, and a statement of a single-valued attribute
// (where they live, work, their manager, age, a favourite...) replaces the earlier statements of it, so the
// profile follows the latest facts; a size cap drops the oldest automatic bullets first and explicit notes last.
import { countTokens } from '../text/index.ts';
import type { WorkingMemoryRequest, WorkingMemoryUpdater } from './ports.ts';
import { attributesOf } from './profile-attributes.ts';
import { restates, splitSentences, stripNoise, tidy, wordSet } from './salience.ts';

export const NOTES_SECTION = 'Notes';

const SECTION_CUES: Array<{ section: string; re: RegExp }> = [
  {
    section: 'Profile',
    re: /\b(my name is|i'?m an? |i am an? |i work (?:as|at|for|in)|i live in|i'?m from|i am from|years old|my (?:wife|husband|partner|kids?|son|daughter|dog|cat|job|family))\b/i,
  },
  {
    section: 'Preferences',
    re: /\b(i (?:prefer|like|love|enjoy|hate|dislike|can'?t stand)|my favou?rite|i'?m allergic|i don'?t eat|i'?m (?:vegan|vegetarian)|from now on|please (?:always|never|don'?t))\b/i,
  },
  { section: 'Goals', re: /\b(my goal|i want to|i'?d like to|i plan to|i'?m planning|i hope to|i'?m trying to|my dream)\b/i },
];

interface Section {
  title: string | null;
  lines: string[];
}

function parse(doc: string): Section[] {
  const sections: Section[] = [{ title: null, lines: [] }];
  for (const line of doc.split('\n')) {
    const h = /^##\s+(.+?)\s*$/.exec(line);
    if (h) sections.push({ title: h[1], lines: [] });
    else sections[sections.length - 1].lines.push(line);
  }
  return sections;
}

function render(sections: Section[]): string {
  const parts: string[] = [];
  for (const s of sections) {
    const body = s.lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (s.title === null) {
      if (body) parts.push(body);
    } else parts.push(body ? `## ${s.title}\n${body}` : `## ${s.title}`);
  }
  return `${parts.join('\n\n')}\n`;
}

const bullets = (s: Section): string[] => s.lines.filter((l) => /^\s*[-*]\s+/.test(l));

/**
 * Adds a bullet under a section (created at the end when missing), unless the section already says it: in the
 * same words (exact), or, for automatic notes, mostly the same content words (similar).
 */
export function addBullet(
  doc: string,
  section: string,
  text: string,
  same: 'exact' | 'similar' = 'similar',
  supersedes: ReadonlySet<string> = new Set(),
): string {
  const sections = parse(doc);
  let target = sections.find((s) => s.title?.toLowerCase() === section.toLowerCase());
  if (!target) {
    target = { title: section, lines: [] };
    sections.push(target);
  }
  const line = `- ${text.replace(/\s+/g, ' ').trim()}`;
  const words = wordSet(text);
  const existing = bullets(target);
  if (same === 'exact' ? existing.some((b) => b.trim() === line) : existing.some((b) => restates(words, wordSet(b), 0.8))) return doc;
  if (supersedes.size)
    for (const s of sections) if (s.title !== null && s.title !== NOTES_SECTION) s.lines = withoutSuperseded(s.lines, supersedes);
  while (target.lines.length && target.lines[target.lines.length - 1].trim() === '') target.lines.pop();
  target.lines.push(line);
  return render(sections);
}

const PREVIOUSLY = 'Previously: ';

/**
 * Automatic bullets that state an attribute a new statement sets: one that states nothing else goes, one that
 * also states other attributes stays, marked as previous (its other facts may still hold).
 */
function withoutSuperseded(lines: string[], keys: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const bullet = /^(\s*[-*]\s+)(.*)$/.exec(line);
    if (!bullet || bullet[2].startsWith(PREVIOUSLY)) {
      out.push(line);
      continue;
    }
    const stated = [...attributesOf(bullet[2]).keys];
    if (!stated.some((k) => keys.has(k))) out.push(line);
    else if (!stated.every((k) => keys.has(k))) out.push(`${bullet[1]}${PREVIOUSLY}${bullet[2]}`);
  }
  return out;
}

/** Drops the oldest bullets (automatic sections first, Notes last) until the document fits. */
export function capDocument(doc: string, maxTokens: number): string {
  if (maxTokens <= 0 || countTokens(doc) <= maxTokens) return doc;
  const sections = parse(doc);
  const order = [...sections.filter((s) => s.title !== NOTES_SECTION), ...sections.filter((s) => s.title === NOTES_SECTION)];
  let out = doc;
  for (const s of order) {
    while (bullets(s).length && countTokens(out) > maxTokens) {
      const first = s.lines.findIndex((l) => /^\s*[-*]\s+/.test(l));
      s.lines.splice(first, 1);
      out = render(sections);
    }
    if (countTokens(out) <= maxTokens) break;
  }
  return out;
}

export function startDocument(existing: string | null, template: string): string {
  return existing?.trim() ? existing : template;
}

/** Files the user's lasting first-person statements of a turn under Profile, Preferences or Goals. */
export class OfflineWorkingMemoryUpdater implements WorkingMemoryUpdater {
  readonly name = 'offline';

  async update(request: WorkingMemoryRequest): Promise<{ document: string }> {
    let doc = request.document;
    for (const m of request.messages) {
      if (m.role !== 'user') continue;
      for (const raw of splitSentences(stripNoise(m.content))) {
        const sentence = tidy(raw);
        if (!sentence || /\?$/.test(sentence) || /^(?:you|your)\b/i.test(sentence) || wordSet(sentence).size < 2) continue;
        const attributes = attributesOf(sentence);
        const section = SECTION_CUES.find((c) => c.re.test(sentence))?.section ?? attributes.section;
        if (section) doc = addBullet(doc, section, sentence, 'similar', attributes.keys);
      }
    }
    return { document: capDocument(doc, request.maxTokens) };
  }
}
