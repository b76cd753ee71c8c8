// What a fact is about, as the consolidators group beliefs by it: the people and things it names other than the
// speakers (`e:` entity ids, or a name the extractor missed), the compound things it talks about (`t:`, "the LLM
// search feature"), and the attribute a single-valued statement sets (`a:`, where Maya lives). An observation is
// about what all its evidence shares; a fact may join it only when it shares that too, whichever consolidator
// (offline or LLM) decided so.
import type { Fact } from '../core/index.ts';
import { nameKey } from '../text/index.ts';
import { analyse, type Analysis } from './statement.ts';
import { statedPart } from './synthesis.ts';

/** NLP analyses by fact id and text (parsing is the costly part of supersession and grouping). */
const analyses = new Map<string, Analysis>();
const KEPT = 50_000;

export const intersect = (a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> => new Set([...a].filter((x) => b.has(x)));

export class Subjects {
  private readonly speakers: Set<string>;

  /** `entityNames`: entity id -> name; `facts`: the facts in view, whose speakers (and `speakers`) are the conversation's. */
  constructor(
    private readonly entityNames: ReadonlyMap<string, string>,
    facts: Iterable<Fact>,
    speakers: Iterable<string> = [],
  ) {
    this.speakers = new Set([...speakers].map(nameKey));
    for (const f of facts) if (f.speaker) this.speakers.add(nameKey(f.speaker));
  }

  name(entityId: string): string {
    return nameKey(this.entityNames.get(entityId) ?? '');
  }

  isSpeaker(key: string): boolean {
    return this.speakers.has(key) || this.speakers.has(key.split(' ')[0]);
  }

  /** The fact's statement and things, read once per fact text (subjects resolved to the fact's entities). */
  analysisOf(f: Fact): Analysis {
    const key = `${f.id}\u0000${f.text}`;
    let found = analyses.get(key);
    if (found === undefined) {
      const entities = f.entities.map((id) => ({ id, key: this.name(id) })).filter((e) => e.key);
      const speaker = f.speaker ? nameKey(f.speaker) : '';
      found = analyse(statedPart(f.text), (subject) => {
        // "I" is whoever said it: two speakers' "I live in ..." are about two people.
        const k = nameKey(subject) === 'i' && speaker ? speaker : nameKey(subject);
        const first = (e: { key: string }): string => e.key.split(' ')[0];
        // The whole subject names the entity (or its first name): "Maya's sister" is not about Maya (see subjectKey).
        const hit = entities.find((e) => k === e.key || k === first(e) || e.key.startsWith(`${k} `));
        return hit ? hit.id : k.replace(/^(the|a|an) /, '');
      });
      if (analyses.size >= KEPT) analyses.clear();
      analyses.set(key, found);
    }
    return found;
  }

  /** What the fact is about (see the module comment); empty for a fact about no one but the speakers. */
  anchorsOf(f: Fact): Set<string> {
    const out = new Set<string>();
    if (f.kind === 'observation') return out;
    for (const e of f.entities) {
      const key = this.name(e);
      if (key && !this.isSpeaker(key)) out.add(`e:${e}`);
    }
    const { statement, things, named } = this.analysisOf(f);
    for (const t of things) out.add(`t:${t}`);
    // A name the extractor did not take as an entity still says whom the fact is about.
    if (named && !f.entities.includes(named) && !this.isSpeaker(named)) out.add(`e:${named}`);
    if (statement) out.add(`a:${statement.subject}|${statement.predicate}`);
    return out;
  }

  /** What all the facts share (the subject of an observation resting on them). */
  sharedBy(facts: Fact[]): Set<string> {
    let shared: Set<string> | null = null;
    for (const f of facts) shared = shared === null ? this.anchorsOf(f) : intersect(shared, this.anchorsOf(f));
    return shared ?? new Set();
  }
}
