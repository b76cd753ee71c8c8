// An async operation outlives the process running it: two `cairn serve` processes share one data directory; the
// one running an async retain is killed with SIGKILL, and the other, already serving and never restarted, takes the
// operation over within seconds and finishes it, each item stored once. While its holder lives, the operation
// stays with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { allFacts, serve } from './support/serve-process.ts';

// Enough items that the retain outlasts the 2.5 s the test watches it run, on a fast idle machine too.
const N = 8000;
const items = Array.from({ length: N }, (_, i) => ({
  content: `On day ${i + 1} Mira tuned piano number ${i + 1} in ${['Porto', 'Ghent', 'Kyoto', 'Oslo'][i % 4]}.`,
  timestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
}));

type Op = { id: string; status: string; progress: { done: number; total: number }; owner: string | null };

test('kill -9 the process running an async retain: another live process takes the operation over and finishes it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-takeover-'));
  const [a, b] = await Promise.all([serve(dataDir), serve(dataDir)]);
  try {
    assert.equal((await a.call('POST', '/v1/banks', { id: 'shared' })).status, 201);
    const submitted = await a.call<{ operationId: string }>('POST', '/v1/banks/shared/memories', { items, async: true });
    assert.equal(submitted.status, 202);
    const id = submitted.body.operationId;
    const since = Date.now();

    // Both processes look for abandoned operations every 2 s: b leaves a's operation alone.
    let op: Op | null = null;
    for (;;) {
      op = (await b.call<Op>('GET', `/v1/operations/${id}`)).body;
      assert.match(op.owner ?? '', new RegExp(`-${a.pid}-[0-9a-f]{6}$`), 'the operation stays with the live process running it');
      assert.notEqual(op.status, 'succeeded', 'killed before the end');
      if (op.progress.done >= 20 && Date.now() - since > 2_500) break;
      await sleep(50);
    }
    await a.kill('SIGKILL');
    const atKill = (await b.call<Op>('GET', `/v1/operations/${id}`)).body;
    assert.ok(atKill.progress.done < N, `killed part-way (${atKill.progress.done} of ${N})`);

    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      op = (await b.call<Op>('GET', `/v1/operations/${id}`)).body;
      if (op.status === 'succeeded' || op.status === 'failed') break;
      await sleep(100);
    }
    assert.equal(op?.status, 'succeeded', `taken over and finished (${op?.status}, ${op?.progress.done} of ${N} done)`);
    assert.match(op.owner ?? '', new RegExp(`-${b.pid}-[0-9a-f]{6}$`), 'by the live process');
    assert.deepEqual(op.progress, { done: N, total: N, chunks: { done: N, total: N } });

    const facts = await allFacts(b, 'shared');
    const keys = facts.map((f) => `${f.source?.documentId} ${f.text}`);
    assert.equal(new Set(keys).size, keys.length, 'no fact stored twice');
    assert.equal(new Set(facts.map((f) => f.source?.documentId)).size, N, 'one document per item, each with its facts');
  } finally {
    await Promise.all([a.kill('SIGKILL'), b.kill('SIGTERM')]);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
