// Loads the embedder and reranker the configuration chose (config/embed.ts: CAIRN_EMBEDDER, CAIRN_RERANKER,
// CAIRN_MODELS_DIR, CAIRN_CACHE_DIR) and describes the choice in one line.
//
// Defaults: the GloVe embedder, because it works offline and its id is recorded with every stored vector; a bank
// never changes embedder silently, so even a configured models dir does not switch it. Without CAIRN_MODELS_DIR,
// transformer models are fetched from the Hugging Face hub on first use into `${CAIRN_CACHE_DIR}/models`. The
// reranker only reorders results, so when CAIRN_RERANKER is unset it turns on by itself when models are evidently
// available: with CAIRN_MODELS_DIR, if that folder holds Xenova/ms-marco-MiniLM-L-6-v2; without it, if
// CAIRN_EMBEDDER already names a hub model (hub access is in use). Otherwise it is 'none'.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder, Reranker } from './ports.ts';
import type { EmbedConfig } from '../config/index.ts';
import { GloveEmbedder } from './glove.ts';
import type { GloveBuildProgress } from './glove-cache.ts';
import { gloveCacheFile, modelCacheDir } from './paths.ts';
import { DEFAULT_RERANKER_MODEL } from './model-ids.ts';
import type { ModelProgress } from './transformers.ts';

/** The transformer adapters, loaded on first use: the offline default starts without transformers.js. */
const transformers = (): Promise<typeof import('./transformers.ts')> => import('./transformers.ts');

export interface SelectOptions {
  /** File events while transformer models load or download. */
  onModelProgress?: (progress: ModelProgress) => void;
  /** Progress of the one-time GloVe cache build. */
  onGloveProgress?: (progress: GloveBuildProgress) => void;
}

export interface SelectedEmbedder {
  embedder: Embedder;
  /** e.g. "embedder: glove:wink-sg-100d:v1 (offline)". */
  description: string;
}

export interface SelectedReranker {
  reranker: Reranker | null;
  /** e.g. "reranker: none". */
  description: string;
}

export async function createEmbedder(config: EmbedConfig, options: SelectOptions = {}): Promise<SelectedEmbedder> {
  const choice = config.embedder;
  if (choice.kind === 'glove') {
    const embedder = await GloveEmbedder.open({ cacheFile: gloveCacheFile(config.cacheDir), onProgress: options.onGloveProgress });
    const built = embedder.loadInfo.source === 'built' ? ', cache built now' : '';
    return { embedder, description: `embedder: ${embedder.id} (offline, ${embedder.dimensions}-d${built})` };
  }
  const embedder = await withHint(
    'Set CAIRN_EMBEDDER=glove to use the offline GloVe embedder, or CAIRN_MODELS_DIR to a folder holding the model',
    async () => (await transformers()).TransformersEmbedder.load({ ...transformersOptions(config, options), model: choice.model }),
  );
  return { embedder, description: `embedder: ${embedder.id} (${embedder.dimensions}-d, ${origin(config)})` };
}

export async function createReranker(config: EmbedConfig, options: SelectOptions = {}): Promise<SelectedReranker> {
  const { modelsDir, reranker: choice } = config;
  let model: string;
  if (choice.kind === 'none') return { reranker: null, description: 'reranker: none' };
  if (choice.kind === 'model') {
    model = choice.model;
  } else if (modelsDir !== undefined) {
    if (!existsSync(join(modelsDir, DEFAULT_RERANKER_MODEL, 'config.json'))) {
      return { reranker: null, description: `reranker: none (${DEFAULT_RERANKER_MODEL} is not in CAIRN_MODELS_DIR)` };
    }
    model = DEFAULT_RERANKER_MODEL;
  } else if (config.embedder.kind === 'transformers') {
    model = DEFAULT_RERANKER_MODEL;
  } else {
    return { reranker: null, description: 'reranker: none' };
  }
  const reranker = await withHint(
    'Set CAIRN_RERANKER=none to recall without reranking, or CAIRN_MODELS_DIR to a folder holding the model',
    async () => (await transformers()).TransformersReranker.load({ ...transformersOptions(config, options), model }),
  );
  return { reranker, description: `reranker: ${reranker.id} (${origin(config)})` };
}

function transformersOptions(config: EmbedConfig, options: SelectOptions) {
  const { modelsDir } = config;
  return { modelsDir, cacheDir: modelCacheDir(config.cacheDir), allowRemote: modelsDir === undefined, onProgress: options.onModelProgress };
}

function origin(config: EmbedConfig): string {
  return config.modelsDir !== undefined
    ? `local models in ${config.modelsDir}`
    : `Hugging Face hub, cached in ${modelCacheDir(config.cacheDir)}`;
}

async function withHint<T>(hint: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { ModelLoadError } = await transformers();
    if (!(error instanceof ModelLoadError)) throw error;
    throw new ModelLoadError(
      error.model,
      `${error.message.replace(/\.$/, '')}. ${hint} (<dir>/${error.model}/ with config.json, tokenizer files and onnx/model.onnx).`,
      {
        cause: error.cause,
      },
    );
  }
}
