// Shared by the command tests: temporary directories removed after the file's tests, the configuration of an
// embedded store in one, and command streams whose output can be read back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after } from 'node:test';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { TEST_CACHE_DIR } from './embed.ts';
import type { CommandIo } from '../../src/cli/commands/portability.ts';

/** A maker of temporary directories (named with the prefix), all removed after the calling test file. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** The embedded store in `dataDir`, offline, quiet. */
export const testConfig = (dataDir: string): Config =>
  loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_CACHE_DIR: TEST_CACHE_DIR, CAIRN_RERANKER: 'none', CAIRN_LOG_LEVEL: 'warn' });

/** Command streams; `text()` is what was written to `out`. */
export function captureIo(): CommandIo & { text: () => string } {
  const out = new PassThrough();
  const err = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  err.resume();
  return { out, err, text: () => text };
}
