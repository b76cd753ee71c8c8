// Where the embedding adapters keep derived files: the GloVe binary cache and downloaded transformer models.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The cache folder when CAIRN_CACHE_DIR is not set. */
export const DEFAULT_CACHE_DIR = join(homedir(), '.cache', 'cairn');

/** The GloVe binary cache in a cache folder. */
export function gloveCacheFile(cacheDir: string): string {
  return join(cacheDir, 'glove-100d.bin');
}

/** The folder hub downloads are kept in (same layout as a CAIRN_MODELS_DIR: `<dir>/<org>/<model>/...`). */
export function modelCacheDir(cacheDir: string = DEFAULT_CACHE_DIR): string {
  return join(cacheDir, 'models');
}
