// Which embedder and reranker run, and where their models and caches are (embed/select.ts loads them).
//   CAIRN_EMBEDDER   'glove' (default) | 'transformers' (= Xenova/bge-small-en-v1.5) | a model id ('org/name',
//                    optionally prefixed 'transformers:', as recorded in embedder ids)
//   CAIRN_RERANKER   'none' | a model id; unset = automatic (see embed/select.ts)
//   CAIRN_MODELS_DIR folder of models (`<dir>/<org>/<name>/...`), read locally only
//   CAIRN_CACHE_DIR  where the GloVe cache and hub downloads go (default ~/.cache/cairn)
import { z } from 'zod';
import { DEFAULT_EMBEDDING_MODEL, GLOVE_ID, DEFAULT_CACHE_DIR } from '../embed/index.ts';
import { section, text } from './variables.ts';

export type EmbedderChoice = { kind: 'glove' } | { kind: 'transformers'; model: string };
export type RerankerChoice = { kind: 'auto' } | { kind: 'none' } | { kind: 'model'; model: string };

export interface EmbedConfig {
  embedder: EmbedderChoice;
  reranker: RerankerChoice;
  modelsDir: string | undefined;
  cacheDir: string;
}

const embedder = text().refine((value) => value === undefined || value === GLOVE_ID || !value.startsWith('glove:'), {
  error: `is not a known GloVe embedder (use 'glove', i.e. ${GLOVE_ID})`,
});

function embedderChoice(value: string | undefined): EmbedderChoice {
  if (value === undefined || value === 'glove' || value === GLOVE_ID) return { kind: 'glove' };
  if (value === 'transformers') return { kind: 'transformers', model: DEFAULT_EMBEDDING_MODEL };
  return { kind: 'transformers', model: value.replace(/^transformers:/, '') };
}

function rerankerChoice(value: string | undefined): RerankerChoice {
  if (value === undefined) return { kind: 'auto' };
  if (value === 'none') return { kind: 'none' };
  return { kind: 'model', model: value.replace(/^transformers:/, '') };
}

export const EMBED = section(
  z.object({ CAIRN_EMBEDDER: embedder, CAIRN_RERANKER: text(), CAIRN_MODELS_DIR: text(), CAIRN_CACHE_DIR: text() }),
  (v): EmbedConfig => ({
    embedder: embedderChoice(v.CAIRN_EMBEDDER),
    reranker: rerankerChoice(v.CAIRN_RERANKER),
    modelsDir: v.CAIRN_MODELS_DIR,
    cacheDir: v.CAIRN_CACHE_DIR ?? DEFAULT_CACHE_DIR,
  }),
);
