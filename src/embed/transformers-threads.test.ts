// The transformer embedder on two threads of one process at once (the API thread and the in-process consolidation
// thread both embed): the ONNX runtime must allow it. Run in a child process, because a runtime that does not
// aborts the whole process (onnxruntime-node 1.21 did, within a few hundred embeddings).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { MODEL_FIXTURES_DIR } from '../../test/support/embed.ts';
import { tsxExecArgv } from '../worker-loader.ts';

test('embedding on the main thread and a worker thread at the same time does not abort the process', () => {
  const run = spawnSync(
    process.execPath,
    [...tsxExecArgv(), fileURLToPath(new URL('./fixtures/two-threads.ts', import.meta.url)), MODEL_FIXTURES_DIR],
    {
      encoding: 'utf8',
      timeout: 150_000,
    },
  );
  assert.equal(run.status, 0, `exit ${run.status} (${run.signal}): ${run.stderr.slice(-1500)}`);
  assert.equal(run.stdout.trim(), 'ok');
});
