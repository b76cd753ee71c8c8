// Reflect cites only what exists: the ids an answerer cites, and the ids written into its answer, are looked up
// in the bank; the ones that are not there are taken out of the answer (its text and its arrays) and reported.
import type { Fact } from '../core/index.ts';
import type { RecallReads } from '../store/index.ts';

/** What a memory id looks like inside an answer's text (facts fct_..., observations obs_...). */
const ID_SHAPE = /\b(?:fct|obs)_[0-9a-z]{6,}\b/gi;

export interface CheckedCitations {
  /** The answer without the invented ids. */
  answer: unknown;
  /** Existing memories the answer rests on (cited or written in it), in the order first named. */
  kept: Fact[];
  /** Ids that do not exist in the bank, in the order first named. */
  invented: string[];
}

function idsIn(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(...(value.match(ID_SHAPE) ?? []));
  else if (Array.isArray(value)) for (const v of value) idsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) idsIn(v, out);
  return out;
}

const GONE = '\u0000';

/** Removes invented ids from text: "[id]" goes whole, "a, id" loses the id and its comma. */
// A NUL marks where an invented id stood (no text holds one): what is left around it goes with it.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL mark, on purpose
const GONE_IN_BRACKETS = /[ \t]*\[\s*\u0000\s*\]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL mark, on purpose
const GONE_IN_LIST = /\u0000\s*[,;]\s*|\s*[,;]\s*\u0000/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL mark, on purpose
const GONE_ALONE = /[ \t]?\u0000/g;

export function scrubText(text: string, invented: ReadonlySet<string>): string {
  if (invented.size === 0) return text;
  return text
    .replace(ID_SHAPE, (id) => (invented.has(id) ? GONE : id))
    .replace(GONE_IN_BRACKETS, '')
    .replace(GONE_IN_LIST, '')
    .replace(GONE_ALONE, '');
}

function scrub(value: unknown, invented: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return scrubText(value, invented);
  if (Array.isArray(value)) return value.filter((v) => !(typeof v === 'string' && invented.has(v.trim()))).map((v) => scrub(v, invented));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, invented)]));
  return value;
}

export async function checkCitations(store: RecallReads, bankId: string, answer: unknown, cited: string[]): Promise<CheckedCitations> {
  const named = [...new Set([...cited.map((id) => id.trim()), ...idsIn(answer, [])])].filter((id) => id !== '');
  const found = new Map((await store.getFacts(bankId, named)).map((f) => [f.id, f]));
  const kept = named.map((id) => found.get(id)).filter((f): f is Fact => f !== undefined);
  const invented = named.filter((id) => !found.has(id));
  return { answer: scrub(answer, new Set(invented)), kept, invented };
}
