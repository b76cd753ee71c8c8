// Real-model adapters on transformers.js (ONNX on CPU): a sentence embedder and a cross-encoder reranker.
//
// Default embedder: Xenova/bge-small-en-v1.5 rather than all-MiniLM-L6-v2. Both give 384-d vectors, but bge-small
// retrieves markedly better (MTEB retrieval average 51.7 vs 41.9) and takes 512 tokens instead of 256, which
// matters for memory recall; the price is 12 layers instead of 6, about half the throughput. bge is trained with
// CLS pooling, MiniLM-style sentence-transformers with mean pooling: the pooling follows the model (see
// defaultPooling) and can be overridden.
//
// Models are read through transformers.js' file cache (`cache_dir`), never through its process-wide `env`:
// - modelsDir: a folder laid out as `<dir>/<org>/<model>/{config.json,tokenizer.json,onnx/model.onnx,...}`,
//   read locally only;
// - otherwise cacheDir (embed/select.ts passes `<CAIRN_CACHE_DIR>/models`; default ~/.cache/cairn/models, same layout), filled from the
//   Hugging Face hub on first use when allowRemote is true. A filled cacheDir can serve as a modelsDir elsewhere.
import {
  AutoModelForSequenceClassification,
  AutoTokenizer,
  pipeline,
  type DataType,
  type FeatureExtractionPipeline,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Embedder, Reranker } from './ports.ts';
import { modelCacheDir } from './paths.ts';

import { DEFAULT_EMBEDDING_MODEL, DEFAULT_RERANKER_MODEL } from './model-ids.ts';

export { DEFAULT_EMBEDDING_MODEL, DEFAULT_RERANKER_MODEL };

export type Pooling = 'mean' | 'cls';

/** A file event while a model loads (downloads report bytes). */
export interface ModelProgress {
  model: string;
  file: string;
  status: 'initiate' | 'download' | 'progress' | 'done';
  loaded?: number;
  total?: number;
}

export interface TransformersOptions {
  model?: string;
  /** Read the model from this folder only (`<dir>/<model id>/...`); nothing is fetched. */
  modelsDir?: string;
  /** Where hub downloads are kept; default ~/.cache/cairn/models. */
  cacheDir?: string;
  /** Fetch missing files from the Hugging Face hub (default true; ignored, i.e. false, when modelsDir is set). */
  allowRemote?: boolean;
  /** ONNX weights variant: 'fp32' reads onnx/model.onnx, 'q8' onnx/model_quantized.onnx, ... Default 'fp32'. */
  dtype?: DataType;
  /** Texts (or query-document pairs) per forward pass. */
  batchSize?: number;
  onProgress?: (progress: ModelProgress) => void;
}

export interface TransformersEmbedderOptions extends TransformersOptions {
  /** Default: 'cls' for bge models, 'mean' otherwise. */
  pooling?: Pooling;
}

/** A model could not be loaded (missing files, no network, bad files); `cause` holds the library's error. */
export class ModelLoadError extends Error {
  readonly model: string;
  constructor(model: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ModelLoadError';
    this.model = model;
  }
}

export function defaultPooling(model: string): Pooling {
  return /(^|\/)bge-/i.test(model) ? 'cls' : 'mean';
}

export class TransformersEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly model: string;
  readonly #extractor: FeatureExtractionPipeline;
  readonly #pooling: Pooling;
  readonly #batchSize: number;
  readonly #serial: LimitFunction = pLimit(1);

  private constructor(
    model: string,
    id: string,
    extractor: FeatureExtractionPipeline,
    pooling: Pooling,
    dimensions: number,
    batchSize: number,
  ) {
    this.model = model;
    this.id = id;
    this.#extractor = extractor;
    this.#pooling = pooling;
    this.dimensions = dimensions;
    this.#batchSize = batchSize;
  }

  /** Loads the model (downloading it if allowed and needed) and probes its output size. */
  static async load(options: TransformersEmbedderOptions = {}): Promise<TransformersEmbedder> {
    const model = options.model ?? DEFAULT_EMBEDDING_MODEL;
    const pooling = options.pooling ?? defaultPooling(model);
    const dtype = options.dtype ?? 'fp32';
    const extractor = await loading(model, options, () =>
      pipeline('feature-extraction', model, { ...pretrainedOptions(model, options), dtype }),
    );
    const probe = await extractor('probe', { pooling, normalize: true });
    const dimensions = probe.dims[probe.dims.length - 1];
    const suffix = `${dtype === 'fp32' ? '' : `:${dtype}`}${pooling === defaultPooling(model) ? '' : `:${pooling}`}`;
    return new TransformersEmbedder(model, `transformers:${model}${suffix}`, extractor, pooling, dimensions, options.batchSize ?? 32);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    // Longest first, so each batch pads to similar lengths.
    const order = texts.map((_, i) => i).sort((a, b) => texts[b].length - texts[a].length);
    for (let start = 0; start < order.length; start += this.#batchSize) {
      const batch = order.slice(start, start + this.#batchSize);
      const tensor = await this.#serial(() =>
        this.#extractor(
          batch.map((i) => texts[i]),
          { pooling: this.#pooling, normalize: true },
        ),
      );
      const rows = splitRows(tensor, this.dimensions);
      batch.forEach((textIndex, row) => {
        out[textIndex] = rows[row];
      });
    }
    return out;
  }

  async dispose(): Promise<void> {
    await this.#extractor.dispose();
  }
}

export class TransformersReranker implements Reranker {
  readonly id: string;
  readonly model: string;
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #classifier: PreTrainedModel;
  readonly #batchSize: number;
  readonly #serial: LimitFunction = pLimit(1);

  private constructor(model: string, id: string, tokenizer: PreTrainedTokenizer, classifier: PreTrainedModel, batchSize: number) {
    this.model = model;
    this.id = id;
    this.#tokenizer = tokenizer;
    this.#classifier = classifier;
    this.#batchSize = batchSize;
  }

  static async load(options: TransformersOptions = {}): Promise<TransformersReranker> {
    const model = options.model ?? DEFAULT_RERANKER_MODEL;
    const dtype = options.dtype ?? 'fp32';
    const shared = pretrainedOptions(model, options);
    const [tokenizer, classifier] = await loading(model, options, () =>
      Promise.all([
        AutoTokenizer.from_pretrained(model, shared),
        AutoModelForSequenceClassification.from_pretrained(model, { ...shared, dtype }),
      ]),
    );
    const id = `transformers:${model}${dtype === 'fp32' ? '' : `:${dtype}`}`;
    return new TransformersReranker(model, id, tokenizer, classifier, options.batchSize ?? 16);
  }

  /** The relevance logit of each (query, document) pair; for two-label models, logit(relevant) - logit(not). */
  async score(query: string, documents: string[]): Promise<number[]> {
    const scores: number[] = [];
    for (let start = 0; start < documents.length; start += this.#batchSize) {
      const batch = documents.slice(start, start + this.#batchSize);
      const logits = await this.#serial(async () => {
        const inputs = this.#tokenizer(new Array<string>(batch.length).fill(query), { text_pair: batch, padding: true, truncation: true });
        const output = (await this.#classifier(inputs)) as { logits: Tensor };
        return output.logits;
      });
      scores.push(...relevance(logits, this.model));
    }
    return scores;
  }

  async dispose(): Promise<void> {
    await this.#classifier.dispose();
  }
}

function pretrainedOptions(model: string, options: TransformersOptions) {
  const local = options.modelsDir !== undefined || options.allowRemote === false;
  return {
    cache_dir: options.modelsDir ?? options.cacheDir ?? modelCacheDir(),
    local_files_only: local,
    progress_callback: options.onProgress ? forwardProgress(model, options.onProgress) : undefined,
  };
}

function forwardProgress(model: string, onProgress: (progress: ModelProgress) => void) {
  return (info: { status: string; file?: string; loaded?: number; total?: number }): void => {
    if (info.file === undefined) return; // 'ready' events carry no file
    if (info.status !== 'initiate' && info.status !== 'download' && info.status !== 'progress' && info.status !== 'done') return;
    onProgress({ model, file: info.file, status: info.status, loaded: info.loaded, total: info.total });
  };
}

async function loading<T>(model: string, options: TransformersOptions, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The library names its own (unused) localModelPath; say which file of the model is missing instead.
    const missing = missingFile(message, model);
    const reason = missing ? `${missing} is missing` : message.replace(/\.$/, '');
    const where =
      options.modelsDir !== undefined
        ? `from the local folder ${options.modelsDir} (expected ${options.modelsDir}/${model}/)`
        : options.allowRemote === false
          ? `from the cache ${options.cacheDir ?? modelCacheDir()} (remote downloads disabled)`
          : `from the Hugging Face hub (cache ${options.cacheDir ?? modelCacheDir()})`;
    throw new ModelLoadError(model, `could not load model '${model}' ${where}: ${reason}`, { cause: error });
  }
}

/** The file a "not found locally" message is about, relative to the model folder (e.g. "onnx/model.onnx"). */
function missingFile(reason: string, model: string): string | undefined {
  const at = /not found locally at "([^"]+)"/.exec(reason)?.[1];
  const marker = `/${model}/`;
  return at?.includes(marker) ? at.slice(at.lastIndexOf(marker) + marker.length) : undefined;
}

function splitRows(tensor: Tensor, dimensions: number): Float32Array[] {
  const data = tensor.data as Float32Array;
  const rows: Float32Array[] = [];
  for (let at = 0; at < data.length; at += dimensions) rows.push(data.slice(at, at + dimensions));
  return rows;
}

function relevance(logits: Tensor, model: string): number[] {
  const [rows, labels] = logits.dims;
  const data = logits.data as Float32Array;
  if (labels !== 1 && labels !== 2) throw new Error(`reranker '${model}' has ${labels} labels; expected a relevance model with 1 or 2`);
  const out: number[] = [];
  for (let r = 0; r < rows; r += 1) out.push(labels === 1 ? data[r] : data[r * 2 + 1] - data[r * 2]);
  return out;
}
