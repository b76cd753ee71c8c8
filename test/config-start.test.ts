// A bad configuration stops `cairn` before it starts anything: bin/cairn.mjs in a child process exits non-zero with
// one line naming each bad variable, its value and what is allowed, and leaves no data directory behind.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { TEST_CACHE_DIR } from './support/embed.ts';

const BIN = join(import.meta.dirname, '..', 'bin', 'cairn.mjs');
const dir = mkdtempSync(join(tmpdir(), 'cairn-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const dataDir = join(dir, 'data');

type Run = { code: number | null; stderr: string };

/** `cairn <args>` with exactly these variables (and a data and cache directory of the test's). */
const cairn = (env: Record<string, string>, ...args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: dir, timeout: 60_000, env: { CAIRN_DATA_DIR: dataDir, CAIRN_CACHE_DIR: TEST_CACHE_DIR, CAIRN_WORKER: 'off', ...env } },
      (err, _stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr }),
    );
  });

const stopsWith = (run: Run, line: string): void => {
  assert.notEqual(run.code, 0, 'exit code');
  assert.equal(run.stderr, `${line}\n`);
  assert.equal(existsSync(dataDir), false, 'nothing was opened');
};

test('cairn serve with a port that is not one', async () => {
  stopsWith(await cairn({ CAIRN_PORT: 'abc' }, 'serve'), "cairn: CAIRN_PORT 'abc' must be an integer from 0 to 65535");
});

test('cairn serve names every bad variable at once, LLM settings included', async () => {
  stopsWith(
    await cairn({ CAIRN_EXTRACT_THREADS: 'many', CAIRN_LOG_LEVEL: 'loud', CAIRN_CONSOLIDATION_LLM_CONCURRENCY: '0' }, 'serve'),
    "cairn: CAIRN_CONSOLIDATION_LLM_CONCURRENCY '0' must be an integer >= 1; CAIRN_EXTRACT_THREADS 'many' must be an integer >= 0; " +
      "CAIRN_LOG_LEVEL 'loud' must be one of debug, info, warn, error, silent",
  );
});

test('cairn worker with a store that does not exist', async () => {
  stopsWith(await cairn({ CAIRN_STORE: 'sqlite' }, 'worker'), "cairn: CAIRN_STORE 'sqlite' must be one of embedded, server");
});
