// A long item's retain shows progress as it goes: besides items done (0 of 1 until the end for one item), the chunks
// of its new text written and in all, heard by a sync caller (the CLI's bar) and recorded on the operation (what an
// async caller polls), ending at all of them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config/index.ts';
import type { ChunkProgress } from '../src/core/index.ts';
import { WRITE_BATCH_FACTS } from '../src/retain/pipeline.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-progress-'));
let app: Awaited<ReturnType<typeof compose>>;
before(async () => {
  app = await compose(loadConfig({ CAIRN_DATA_DIR: dir, CAIRN_WORKER: 'off', CAIRN_LOG_LEVEL: 'warn' }), {
    startWorker: false,
    announce: false,
  });
});
after(async () => {
  await app.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

/** About 200,000 characters of paragraphs: more chunks than one write batch holds (WRITE_BATCH). */
const longText = Array.from(
  { length: 1800 },
  (_, i) => `Paragraph ${i}: the billing service moved its queue to worker ${i % 17} on day ${i}. Priya measured ${i * 3} ms.\n\n`,
).join('');

test("one long item's retain reports its chunks as they are written, and its operation records them", async () => {
  await app.engine.createBank({ id: 'long' });
  const heard: Array<{ done: number; total: number; chunks?: ChunkProgress }> = [];
  const { operation, result } = await app.engine.retain(
    'long',
    { items: [{ content: longText, speaker: 'Priya' }] },
    { progress: (done, total, chunks) => heard.push({ done, total, chunks }) },
  );
  const chunks = heard.map((h) => h.chunks).filter((c): c is ChunkProgress => c !== undefined);
  const total = result?.chunksProcessed ?? 0;
  assert.ok(total > 4, `a long item makes many chunks (${total})`);
  assert.ok(chunks.length >= 2, `progress is heard more than once: ${JSON.stringify(heard)}`);
  assert.ok(
    chunks.every((c) => c.total === total),
    'the total is known from the start',
  );
  assert.ok(
    chunks.some((c) => c.done > 0 && c.done < total),
    'progress is heard while the item is part-way',
  );
  for (let i = 1; i < chunks.length; i++) assert.ok(chunks[i].done >= chunks[i - 1].done, 'never goes back');
  assert.deepEqual(chunks.at(-1), { done: total, total });
  assert.ok(
    heard.filter((h) => h.chunks && h.chunks.done < total).every((h) => h.done === 0),
    'items done stays 0 until the item is whole',
  );

  const stored = await app.store.getOperation(operation.id);
  assert.deepEqual(stored?.progress, { done: 1, total: 1, chunks: { done: total, total } });
  const listed = await app.store.listOperations('long', { limit: 10, offset: 0 });
  assert.deepEqual(listed.find((o) => o.id === operation.id)?.progress.chunks, { done: total, total });
});

test('text dense in short facts is written in batches of a bounded number of facts, not of chunks alone', async () => {
  await app.engine.createBank({ id: 'dense' });
  // Lists of short statements: about three facts per hundred characters, 60 per chunk.
  const dense = Array.from({ length: 3000 }, (_, i) => `- Worker ${i} uses queue ${i % 13}.\n`).join('');
  const writes: number[] = [];
  const { store } = app;
  const writeItem = store.writeItem.bind(store);
  store.writeItem = (w) => {
    writes.push(w.facts.length);
    return writeItem(w);
  };
  try {
    const { result } = await app.engine.retain('dense', { items: [{ content: dense }] });
    assert.ok((result?.facts ?? 0) > 2000, `many facts (${result?.facts})`);
    const perChunk = (result?.facts ?? 0) / (result?.chunksProcessed ?? 1);
    assert.ok(writes.length > (result?.facts ?? 0) / (WRITE_BATCH_FACTS + 2 * perChunk), `writes: ${writes.join(' ')}`);
    assert.ok(Math.max(...writes) < WRITE_BATCH_FACTS + 2 * perChunk, `no write far above ${WRITE_BATCH_FACTS} facts: ${writes.join(' ')}`);
  } finally {
    store.writeItem = writeItem;
  }
});
