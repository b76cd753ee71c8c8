// Shared by tests: where the GloVe binary cache lives during test runs, so it is built once per machine and every
// test file (ours and other areas') reuses it, and where the model fixtures are.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A fixed folder under the OS temp dir; pass it as CAIRN_CACHE_DIR. */
export const TEST_CACHE_DIR = join(tmpdir(), 'cairn-test-cache');

/** The GloVe cache file inside TEST_CACHE_DIR (what `defaultGloveCacheFile({ CAIRN_CACHE_DIR: TEST_CACHE_DIR })` gives). */
export const TEST_GLOVE_CACHE_FILE = join(TEST_CACHE_DIR, 'glove-100d.bin');

/** test/fixtures/models: tiny-random-embed and tiny-random-rerank (random weights, real MiniLM tokenizer). */
export const MODEL_FIXTURES_DIR = fileURLToPath(new URL('../fixtures/models', import.meta.url));
