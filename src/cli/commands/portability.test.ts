// The export, import and reconcile commands as the CLI runs them: through the configured store (here the
// embedded one in temporary data directories), writing to the streams they are given.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { captureIo as io, tempDirs, testConfig as configFor } from '../../../test/support/cli.ts';
import { compose } from '../../compose.ts';
import { copiedId } from '../../portability/copy.ts';
import { exportCommand, formatReconcileReport, importCommand, reconcileCommand } from './portability.ts';

const temp = tempDirs('cairn-portability-cli-');

test('cairn export then cairn import moves a bank between data directories', async () => {
  const from = configFor(temp());
  const { engine, threads, shutdown } = await compose(from);
  await engine.createBank({ id: 'notes', mission: 'remember places' });
  await engine.retain('notes', { items: [{ content: 'I moved to Lisbon in March.', speaker: 'Sam', timestamp: '2024-03-02T10:00:00Z' }] });
  const facts = (await engine.memories.listFacts('notes', { limit: 10, offset: 0 })).facts;
  const sent = (await threads.append('notes', 'chat', { messages: [{ role: 'user', content: 'Remind me to water the plants.' }] }))
    .messages;
  await shutdown();
  assert.ok(facts.length >= 1);

  const file = join(temp(), 'notes.jsonl');
  await exportCommand(from, 'notes', { out: file, embeddings: true }, io());
  assert.equal(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]).format, 'cairn-export');
  const piped = io();
  await exportCommand(from, 'notes', {}, piped);
  assert.equal(
    piped.text().trim().split('\n').length,
    readFileSync(file, 'utf8').trim().split('\n').length,
    'stdout carries the same archive',
  );

  const to = configFor(temp());
  const result = io();
  await importCommand(to, file, { bank: 'notes-2' }, result);
  assert.match(result.text(), /imported bank notes-2: 1 documents.*, 1 threads \(1 messages/);
  const copy = await compose(to);
  try {
    assert.deepEqual(
      await copy.threadStore.listMessages('notes-2', 'chat'),
      sent.map((m) => ({ ...m, bankId: 'notes-2', id: copiedId('notes-2', m.id) })),
      'under another bank id the records get ids of their own',
    );
    const got = (await copy.engine.memories.listFacts('notes-2', { limit: 10, offset: 0 })).facts;
    assert.deepEqual(
      got.map((f) => [f.id, f.text]),
      facts.map((f) => [copiedId('notes-2', f.id), f.text]),
    );
    assert.equal((await copy.engine.recall('notes-2', { query: 'Where did Sam move?' })).results[0]?.id, copiedId('notes-2', facts[0].id));
  } finally {
    await copy.engine.close();
  }

  const rec = io();
  await reconcileCommand(to, {}, rec);
  assert.match(rec.text(), /nothing to reconcile: the sqlite store/);
  await assert.rejects(reconcileCommand(to, { olderThan: 'soon' }, io()), /--older-than/);
});

test('cairn import --bank copies a bank within its own data directory; a tampered archive is refused by line and field', async () => {
  const config = configFor(temp());
  const { engine, shutdown } = await compose(config);
  await engine.createBank({ id: 'a' });
  await engine.retain('a', { items: [{ content: 'I moved to Lisbon in March.', speaker: 'Sam', timestamp: '2024-03-02T10:00:00Z' }] });
  await shutdown();
  const file = join(temp(), 'a.jsonl');
  await exportCommand(config, 'a', { out: file }, io());

  const result = io();
  await importCommand(config, file, { bank: 'a2' }, result);
  assert.match(result.text(), /imported bank a2: 1 documents, 1 chunks, [1-9]\d* facts/);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const factLine = lines.findIndex((l) => l.includes('"type":"fact"'));
  const fact = JSON.parse(lines[factLine]) as { fact: Record<string, unknown> };
  fact.fact.mentionedAt = '2024-02-30';
  lines[factLine] = JSON.stringify(fact);
  const bad = join(temp(), 'bad.jsonl');
  writeFileSync(bad, `${lines.join('\n')}\n`);
  await assert.rejects(
    importCommand(config, bad, { bank: 'a3' }, io()),
    new RegExp(`line ${factLine + 1} \\(fact record\\): fact\\.mentionedAt: '2024-02-30' is not a valid ISO 8601 time`),
  );

  const both = await compose(config);
  try {
    await both.engine.deleteBank('a');
    const copy = (await both.engine.recall('a2', { query: 'Where did Sam move?' })).results;
    assert.match(copy[0]?.text ?? '', /Lisbon/, 'the copy outlives its original');
    assert.equal(await both.engine.findBank('a3'), null, 'the refused archive left no bank');
  } finally {
    await both.engine.close();
  }
});

test("reconcile's report names the keyword indexes of deleted banks it would drop, or dropped", () => {
  const report = {
    dryRun: true,
    stagingsCompleted: 0,
    stagingsRolledBack: 0,
    stagedFactsCompleted: 0,
    orphanPoints: 0,
    missingPoints: 0,
    reembedded: 0,
    flagged: 0,
    sweptBanks: [],
    orphanKeywordIndexes: ['kw_fact_aa', 'kw_chunk_aa'],
  };
  assert.match(formatReconcileReport(report), /keyword indexes of deleted banks would be dropped: kw_fact_aa, kw_chunk_aa$/m);
  assert.match(
    formatReconcileReport({ ...report, dryRun: false, orphanKeywordIndexes: [] }),
    /keyword indexes of deleted banks dropped: none$/m,
  );
});
