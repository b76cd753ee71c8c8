// Chooses the embedder and reranker adapters from configuration, loads them, and describes the choice in one line.
//
//   CAIRN_EMBEDDER   'glove' (default) | 'transformers' (= Xenova/bge-small-en-v1.5) | a model id ('org/name',
//                    optionally prefixed 'transformers:', as recorded in embedder ids)
//   CAIRN_RERANKER   'none' | a model id; unset = automatic, see below
//   CAIRN_MODELS_DIR folder of models (`<dir>/<org>/<name>/...`), read locally only; without it, transformer
//                    models are fetched from the Hugging Face hub on first use into `${CAIRN_CACHE_DIR}/models`
//   CAIRN_CACHE_DIR  where the GloVe cache and hub downloads go (default ~/.cache/cairn)
//
// Defaults: the GloVe embedder, because it works offline and its id is recorded with every stored vector; a bank
// never changes embedder silently, so even a configured models dir does not switch it. The reranker only reorders
// results, so it turns on by itself when models are evidently available: with CAIRN_MODELS_DIR, if that folder holds
// Xenova/ms-marco-MiniLM-L-6-v2; without it, if CAIRN_EMBEDDER already names a hub model (hub access is in use).
// Otherwise it is 'none'.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder, Reranker } from './ports.ts';
import { GLOVE_ID, GloveEmbedder } from './glove.ts';
import type { GloveBuildProgress } from './glove-cache.ts';
import { defaultGloveCacheFile, defaultModelCacheDir } from './paths.ts';
import { DEFAULT_EMBEDDING_MODEL, DEFAULT_RERANKER_MODEL } from './model-ids.ts';
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

type EmbedderChoice = { kind: 'glove' } | { kind: 'transformers'; model: string };

export function embedderChoice(env: NodeJS.ProcessEnv = process.env): EmbedderChoice {
  const value = env.CAIRN_EMBEDDER?.trim() || 'glove';
  if (value === 'glove' || value === GLOVE_ID) return { kind: 'glove' };
  if (value.startsWith('glove:')) throw new Error(`CAIRN_EMBEDDER '${value}' is not a known GloVe embedder (use 'glove', i.e. ${GLOVE_ID})`);
  if (value === 'transformers') return { kind: 'transformers', model: DEFAULT_EMBEDDING_MODEL };
  return { kind: 'transformers', model: value.replace(/^transformers:/, '') };
}

export async function createEmbedder(env: NodeJS.ProcessEnv = process.env, options: SelectOptions = {}): Promise<SelectedEmbedder> {
  const choice = embedderChoice(env);
  if (choice.kind === 'glove') {
    const embedder = await GloveEmbedder.open({ cacheFile: defaultGloveCacheFile(env), onProgress: options.onGloveProgress });
    const built = embedder.loadInfo.source === 'built' ? ', cache built now' : '';
    return { embedder, description: `embedder: ${embedder.id} (offline, ${embedder.dimensions}-d${built})` };
  }
  const modelsDir = modelsDirOf(env);
  const embedder = await withHint(
    'Set CAIRN_EMBEDDER=glove to use the offline GloVe embedder, or CAIRN_MODELS_DIR to a folder holding the model',
    async () => (await transformers()).TransformersEmbedder.load({ ...transformersOptions(env, modelsDir, options), model: choice.model }),
  );
  return { embedder, description: `embedder: ${embedder.id} (${embedder.dimensions}-d, ${origin(env, modelsDir)})` };
}

export async function createReranker(env: NodeJS.ProcessEnv = process.env, options: SelectOptions = {}): Promise<SelectedReranker> {
  const modelsDir = modelsDirOf(env);
  const value = env.CAIRN_RERANKER?.trim();
  let model: string;
  if (value === 'none') return { reranker: null, description: 'reranker: none' };
  if (value) {
    model = value.replace(/^transformers:/, '');
  } else if (modelsDir !== undefined) {
    if (!existsSync(join(modelsDir, DEFAULT_RERANKER_MODEL, 'config.json'))) {
      return { reranker: null, description: `reranker: none (${DEFAULT_RERANKER_MODEL} is not in CAIRN_MODELS_DIR)` };
    }
    model = DEFAULT_RERANKER_MODEL;
  } else if (embedderChoice(env).kind === 'transformers') {
    model = DEFAULT_RERANKER_MODEL;
  } else {
    return { reranker: null, description: 'reranker: none' };
  }
  const reranker = await withHint(
    'Set CAIRN_RERANKER=none to recall without reranking, or CAIRN_MODELS_DIR to a folder holding the model',
    async () => (await transformers()).TransformersReranker.load({ ...transformersOptions(env, modelsDir, options), model }),
  );
  return { reranker, description: `reranker: ${reranker.id} (${origin(env, modelsDir)})` };
}

function modelsDirOf(env: NodeJS.ProcessEnv): string | undefined {
  return env.CAIRN_MODELS_DIR?.trim() || undefined;
}

function transformersOptions(env: NodeJS.ProcessEnv, modelsDir: string | undefined, options: SelectOptions) {
  return { modelsDir, cacheDir: defaultModelCacheDir(env), allowRemote: modelsDir === undefined, onProgress: options.onModelProgress };
}

function origin(env: NodeJS.ProcessEnv, modelsDir: string | undefined): string {
  return modelsDir !== undefined ? `local models in ${modelsDir}` : `Hugging Face hub, cached in ${defaultModelCacheDir(env)}`;
}

async function withHint<T>(hint: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { ModelLoadError } = await transformers();
    if (!(error instanceof ModelLoadError)) throw error;
    throw new ModelLoadError(error.model, `${error.message.replace(/\.$/, '')}. ${hint} (<dir>/${error.model}/ with config.json, tokenizer files and onnx/model.onnx).`, {
      cause: error.cause,
    });
  }
}
