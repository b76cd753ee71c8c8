// Similarity the offline consolidator can threshold on whatever the embedder: raw cosines are rescaled against
// the embedder's own baseline (the mean cosine between unrelated sentences), so 0 means "as alike as unrelated
// text" and 1 means identical, for GloVe averages and transformer embeddings alike.
import { cosine } from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';

/** Sentences about unrelated everyday things: their mutual cosines are the embedder's "unrelated" level. */
const UNRELATED = [
  'The weather was cold and rainy all week.',
  'She bought fresh bread at the bakery on Monday.',
  'The quarterly report shows revenue grew in Asia.',
  'He fixed the flat tire on his bicycle.',
  'The museum opens a new dinosaur exhibit next spring.',
  'They adopted a puppy from the animal shelter.',
  'The train to the airport was delayed by an hour.',
  'My grandmother taught me how to knit scarves.',
  'The software update changed the login screen.',
  'We watched a documentary about deep sea fish.',
];

export interface Calibration {
  /** Mean cosine between unrelated sentences. */
  readonly baseline: number;
  /** Cosine rescaled so the baseline maps to 0 (negative values clamp to 0). */
  adjust(cos: number, baseline?: number): number;
  /** The mean cosine of one vector (a word, a mission term) with the unrelated sentences: its own baseline. */
  baselineOf(vector: Float32Array): number;
}

export function calibration(baseline: number, unrelated: Float32Array[] = []): Calibration {
  const clamp = (b: number): number => Math.min(Math.max(b, 0), 0.95);
  const b = clamp(baseline);
  return {
    baseline: b,
    adjust: (cos, own) => {
      const base = own === undefined ? b : clamp(own);
      return Math.max(0, (cos - base) / (1 - base));
    },
    baselineOf: (vector) => (unrelated.length ? unrelated.reduce((s, u) => s + cosine(vector, u), 0) / unrelated.length : b),
  };
}

const cache = new Map<string, Promise<Calibration>>();

/** The embedder's calibration, measured once per embedder id. */
export function calibrate(embedder: Embedder): Promise<Calibration> {
  let found = cache.get(embedder.id);
  if (!found) {
    found = embedder.embed(UNRELATED).then((vectors) => {
      let sum = 0;
      let n = 0;
      for (let i = 0; i < vectors.length; i++)
        for (let j = i + 1; j < vectors.length; j++) {
          sum += cosine(vectors[i], vectors[j]);
          n++;
        }
      return calibration(n ? sum / n : 0, vectors);
    });
    found.catch(() => cache.delete(embedder.id));
    cache.set(embedder.id, found);
  }
  return found;
}
