// `cairn retain` on the real embedded store: a file with repeated items is retained whole (each occurrence of
// a document's repeated turns kept, running it again changes nothing), bank ids follow the API's rule, and the
// command fails with one clear line, not a stack trace.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compose } from '../../compose.ts';
import { importCommand } from './portability.ts';
import { main } from '../main.ts';
import { retainCommand } from './memory-commands.ts';
import { captureIo as io, tempDirs, testConfig as configFor } from '../../../test/support/cli.ts';

const temp = tempDirs('cairn-cli-retain-');

// 150 turns: more than one of the command's old batches of 100, with "ok" and "thanks" repeated throughout.
const turns = Array.from({ length: 150 }, (_, i) => ({
  content: i % 3 === 0 ? 'ok' : i % 3 === 1 ? 'thanks' : `Turn ${i}: Mira talked about the lighthouse in Brest.`,
  speaker: i % 2 ? 'Mira' : 'Noor',
  documentId: 'chat',
}));

test('cairn retain: repeated items are retained, each turn of the document kept; running it again adds nothing', async () => {
  const dataDir = temp();
  const file = join(temp(), 'chat.jsonl');
  writeFileSync(file, [...turns, { content: 'ok' }, { content: 'ok' }].map((t) => JSON.stringify(t)).join('\n'));
  const config = configFor(dataDir);
  const first = io();
  await retainCommand(config, file, { bank: 'cli' }, first);
  assert.match(first.text(), /retained 152 item\(s\) into cli/);
  const again = io();
  await retainCommand(config, file, { bank: 'cli' }, again);
  assert.match(again.text(), /: 0 new fact\(s\)/);
  const { store, engine } = await compose(config, { startWorker: false });
  try {
    assert.equal((await store.listChunks('cli', 'chat')).length, 150, 'every turn of the document, repeats included, once');
    assert.equal((await store.listDocuments('cli', 100, 0)).length, 3);
  } finally {
    await engine.close();
  }
});

test('cairn retain and cairn import refuse bank ids the API refuses, naming the rule', async () => {
  const config = configFor(temp());
  const file = join(temp(), 'one.json');
  writeFileSync(file, JSON.stringify([{ content: 'hello' }]));
  for (const bank of ['a/b', '..', 'bänk', 'x'.repeat(129)])
    await assert.rejects(retainCommand(config, file, { bank }, io()), /letters, digits/, bank);
  await assert.rejects(importCommand(config, file, { bank: '..' }, io()), /letters, digits/);
});

test('the cairn command reports a failure in one line, without a stack trace', async () => {
  const file = join(temp(), 'one.json');
  writeFileSync(file, JSON.stringify([{ content: 'hello' }]));
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    await main(['retain', file, '--bank', 'a/b']);
  } finally {
    process.stderr.write = write;
  }
  assert.equal(process.exitCode, 1);
  process.exitCode = 0;
  const text = written.join('');
  assert.match(text, /^cairn: bank id 'a\/b'.*letters, digits/m);
  assert.doesNotMatch(text, /^\s+at /m, 'no stack trace');
});
