// The extractor port: turns one chunk of a retained item into facts. Offline (deterministic NLP) and LLM
// implementations plug in here.
import type { FactKind } from '../core/index.ts';

/** How much an LLM extractor keeps: the facts that matter, every detail, or the source's own words. */
export type RetainMode = 'concise' | 'verbose' | 'verbatim';
export const RETAIN_MODES: readonly RetainMode[] = ['concise', 'verbose', 'verbatim'];

export interface ExtractInput {
  bankId: string;
  text: string;
  speaker: string | null;
  /** Who the chunk is said to: the other speaker nearest to it in its document (second person resolves to them). */
  addressee?: string | null;
  /** True when the chunk is the agent's own turn: its facts are `experience`. */
  fromAgent: boolean;
  /** When the item was said or written (ISO); relative dates are read from it. */
  timestamp: string;
  context: string | null;
  /** The bank's retain mission (what to keep), if any. */
  mission?: string;
  /** The bank's retain mode (bank.config.retainMode; default concise). The offline extractor ignores it. */
  mode?: RetainMode;
}

export interface ExtractedEntity {
  name: string;
  type: string | null;
}

export interface ExtractedFact {
  text: string;
  kind: FactKind;
  /** Character span of the supporting text inside the chunk. */
  start: number;
  end: number;
  occurredStart: string | null;
  occurredEnd: string | null;
  entities: ExtractedEntity[];
  /** Indexes (into this chunk's facts) of earlier facts this one is caused by. */
  causedBy: number[];
  /**
   * Keyword terms beside the fact's words: identifiers from the code the fact introduces and from its inline code
   * (`pg_dump`, `socket.io`, `v2.3.1`, `ERR_CONNECTION_REFUSED`), for the fact's keyword representation.
   */
  terms?: string[];
  /** The heading the fact stands under in its chunk ("Step 2: Update the client"): context for its representations,
   * not part of its text. */
  section?: string;
  /**
   * Whom the fact's "you" means, when its text still says "you" to someone known (kept in the fact's metadata:
   * an observation shows the name, while the fact keeps the words as said).
   */
  addressee?: string;
}

export interface Extractor {
  readonly name: string;
  /** How many extract() calls may be in flight at once (default 1: one chunk after another). */
  readonly concurrency?: number;
  extract(input: ExtractInput): Promise<ExtractedFact[]>;
}
