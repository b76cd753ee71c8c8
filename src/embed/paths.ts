// Where the embedding adapters keep derived files: the GloVe binary cache and downloaded transformer models.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$CAIRN_CACHE_DIR`, else `~/.cache/cairn`. */
export function cairnCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CAIRN_CACHE_DIR?.trim();
  return configured ? configured : join(homedir(), '.cache', 'cairn');
}

/** Default file of the GloVe binary cache. */
export function defaultGloveCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(cairnCacheDir(env), 'glove-100d.bin');
}

/** Default folder that hub downloads are kept in (same layout as a CAIRN_MODELS_DIR: `<dir>/<org>/<model>/...`). */
export function defaultModelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cairnCacheDir(env), 'models');
}
