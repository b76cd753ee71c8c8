// The bank's mission as something facts can be scored against: its content terms (nouns and adjectives, not the
// generic "track", "find", "remember"), each with its stem and vector. A fact is relevant to a term when it uses
// the word (same stem) or when its vector is close to the term's, measured above the term's own baseline.
import nlp from 'compromise';
import type { Embedder } from '../embed/index.ts';
import { contentWords, stem } from '../text/index.ts';
import { cosine } from '../core/index.ts';
import type { Calibration } from './similarity.ts';

/** Verbs missions start with that say nothing about what matters. */
const GENERIC = new Set(
  `track monitor find identify remember help keep note notice learn understand follow record know watch capture store
  detect spot flag surface support assist collect gather summarize summarise focus pay attention care about user users
  agent assistant memory bank information details detail important things stuff`.split(/\s+/),
);

export interface MissionTerm {
  word: string;
  stem: string;
  vector: Float32Array | null;
  /** Mean cosine of the term with unrelated sentences (its "unrelated" level). */
  baseline: number;
}

export interface MissionProfile {
  text: string;
  terms: MissionTerm[];
}

export const NO_MISSION: MissionProfile = { text: '', terms: [] };

/** Content terms of a mission, in order, without duplicates. */
export function missionTerms(mission: string): string[] {
  const verbs = new Set<string>();
  for (const t of nlp(mission).terms().json() as Array<{ text: string; terms: Array<{ tags: string[] }> }>) {
    const tags = t.terms[0]?.tags ?? [];
    if (tags.includes('Verb') && !tags.includes('Noun') && !tags.includes('Gerund')) for (const w of contentWords(t.text)) verbs.add(w);
  }
  const out: string[] = [];
  for (const w of contentWords(mission)) if (!GENERIC.has(w) && !verbs.has(w) && !out.includes(w)) out.push(w);
  return out;
}

const profiles = new Map<string, Promise<MissionProfile>>();

/** The mission's profile under this embedder (cached per embedder and mission text). */
export function missionProfile(mission: string, embedder: Embedder, calibration: Calibration): Promise<MissionProfile> {
  const text = mission.trim();
  if (!text) return Promise.resolve(NO_MISSION);
  const key = `${embedder.id}\u0000${text}`;
  let found = profiles.get(key);
  if (!found) {
    const words = missionTerms(text);
    found = (words.length ? embedder.embed(words) : Promise.resolve([])).then((vectors) => ({
      text,
      terms: words.map((word, i) => ({
        word,
        stem: stem(word),
        vector: vectors[i] ?? null,
        baseline: vectors[i] ? calibration.baselineOf(vectors[i]) : 0,
      })),
    }));
    found.catch(() => profiles.delete(key));
    if (profiles.size > 1000) profiles.clear();
    profiles.set(key, found);
  }
  return found;
}

export interface Relevance {
  /** 0 (unrelated to the mission) .. 1 (uses one of its words); 1 when the bank has no mission. */
  score: number;
  /** The mission term the fact is most about (its facet), if any. */
  term: string | null;
}

/** The fact uses the term: the same stem, or one extending the other by a suffix ("block" / "blocker"). */
function usesTerm(stems: ReadonlySet<string>, term: string): boolean {
  if (stems.has(term)) return true;
  for (const s of stems) {
    const [short, long] = s.length <= term.length ? [s, term] : [term, s];
    if (short.length >= 4 && long.length - short.length <= 3 && long.startsWith(short)) return true;
  }
  return false;
}

export function missionRelevance(
  profile: MissionProfile,
  stems: ReadonlySet<string>,
  vector: Float32Array | null,
  calibration: Calibration,
): Relevance {
  if (profile.terms.length === 0) return { score: 1, term: null };
  let best: Relevance = { score: 0, term: null };
  for (const t of profile.terms) {
    const score = usesTerm(stems, t.stem) ? 1 : t.vector && vector ? calibration.adjust(cosine(t.vector, vector), t.baseline) : 0;
    if (score > best.score) best = { score, term: t.word };
  }
  return best;
}
