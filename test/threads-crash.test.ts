// A crash during buffering loses no message. A child process (this file, run with CAIRN_THREADS_CRASH_CHILD)
// appends messages to a thread whose observer is an LLM on a local server that never answers, so background
// buffering is in flight; the test SIGKILLs the child there, then reopens the store: every acknowledged message
// is stored, the interrupted chunk is visible as `running`, and recovery re-buffers and observes everything.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAiCompatibleProvider } from '../src/llm/openai-compatible.ts';
import { SqliteStore } from '../src/store/sqlite/store.ts';
import { SqliteThreadStore } from '../src/store/sqlite/threads.ts';
import { ThreadMemory } from '../src/threads/memory.ts';
import { startFakeLlm } from './support/threads.ts';

const SETTINGS = {
  messageTokens: 400,
  bufferTokens: 100,
  blockAfter: 1.5,
  observationTokens: 0,
  observer: 'llm',
  workingMemory: { enabled: false },
};
const TOTAL = 60;

const messageText = (i: number): string =>
  `Message ${i}: we decided the launch of release ${i} moves to week ${(i % 12) + 1}, and Priya still needs to update checklist item ${i * 7}.`;

async function child(): Promise<void> {
  const db = process.env.CAIRN_THREADS_CRASH_DB as string;
  const llmUrl = process.env.CAIRN_THREADS_CRASH_LLM as string;
  const store = new SqliteStore({ file: db });
  const llm = createOpenAiCompatibleProvider({ baseUrl: llmUrl, model: 'fake-model' });
  const memory = new ThreadMemory({ store: new SqliteThreadStore(store.db), banks: store, llmFor: () => llm });
  await store.createBank({
    id: 'crash',
    name: 'crash',
    mission: '',
    config: { threads: SETTINGS },
    embedder: null,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
  });
  for (let i = 0; i < TOTAL; i++) {
    const r = await memory.append('crash', 'doomed', { messages: [{ role: i % 2 ? 'assistant' : 'user', content: messageText(i) }] });
    process.stdout.write(`ack ${i} ${r.messages[0].id}\n`);
  }
  process.stdout.write('done\n');
}

if (process.env.CAIRN_THREADS_CRASH_CHILD) {
  await child();
} else {
  test('SIGKILL during background buffering loses no message and recovers the buffer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-crash-'));
    const file = join(dir, 'cairn.db');
    let sawObserverCall: () => void = () => undefined;
    const observerCalled = new Promise<void>((resolve) => (sawObserverCall = resolve));
    const llm = await startFakeLlm(() => {
      sawObserverCall();
      return null; // hang: the buffering stays in flight
    });
    try {
      const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
        env: {
          ...process.env,
          CAIRN_THREADS_CRASH_CHILD: '1',
          CAIRN_THREADS_CRASH_DB: file,
          CAIRN_THREADS_CRASH_LLM: llm.url,
          CAIRN_LOG_LEVEL: 'error',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const acked: string[] = [];
      let lastAck = Date.now();
      createInterface({ input: proc.stdout }).on('line', (line) => {
        const m = /^ack (\d+) (\S+)$/.exec(line);
        if (m) {
          acked.push(m[2]);
          lastAck = Date.now();
        }
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));

      await observerCalled;
      // The child keeps appending while the chunk is in flight, until it blocks past blockAfter waiting for it.
      while (Date.now() - lastAck < 300) await new Promise((r) => setTimeout(r, 20));
      proc.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      assert.ok(acked.length < TOTAL, 'the child was killed before it finished');

      // Reopen the store in this process: nothing acknowledged is missing, nothing is duplicated or out of order.
      const store = new SqliteStore({ file });
      const threads = new SqliteThreadStore(store.db);
      const stored = await threads.listMessages('crash', 'doomed');
      const ids = stored.map((m) => m.id);
      for (const id of acked) assert.ok(ids.includes(id), `acknowledged message ${id} was lost`);
      assert.deepEqual(
        stored.map((m) => m.content),
        stored.map((_, i) => messageText(i)),
        'stored messages are the sent ones, in order, once each',
      );
      const interrupted = await threads.listItems('crash', 'thread:doomed', { statuses: ['running'] });
      assert.equal(interrupted.length, 1, 'the chunk being buffered at the kill is recorded as running');
      const chunkEnd = stored.findIndex((m) => m.seq === interrupted[0].toSeq);
      assert.ok(acked.length > chunkEnd + 1, 'messages were appended (and acknowledged) while the chunk was in flight');
      assert.ok(llm.requests.length >= 1, 'the observer was called');

      // Recovery (offline observer now): the running chunk is discarded, re-buffered, and every message is covered.
      await store.updateBank({ ...(await store.getBank('crash'))!, config: { threads: { ...SETTINGS, observer: 'offline' } } });
      const memory = new ThreadMemory({ store: threads, banks: store });
      const before = await memory.status('crash', 'doomed');
      assert.equal(
        before.windows.buffered.observations.items.filter((i) => i.status === 'running').length,
        0,
        'recovery discarded the dead chunk',
      );
      await memory.append('crash', 'doomed', {
        messages: [{ role: 'user', content: 'Back after the crash: please confirm the launch plan.' }],
      });
      await memory.idle();
      const all = await threads.listMessages('crash', 'doomed');
      const items = await threads.listItems('crash', 'thread:doomed', { statuses: ['buffered', 'active'] });
      const ctx = await memory.context('crash', 'doomed');
      const covered = new Set<number>();
      for (const it of items) for (let q = it.fromSeq ?? 0; q <= (it.toSeq ?? -1); q++) covered.add(q);
      for (const m of ctx.messages) covered.add(m.seq);
      for (const m of all) assert.ok(covered.has(m.seq), `message ${m.seq} is neither observed, buffered nor in the context tail`);
      const status = await memory.status('crash', 'doomed');
      assert.notEqual(status.windows.buffered.observations.status, 'running');
      assert.ok(
        status.windows.active.observations.count + status.windows.buffered.observations.chunks > 0,
        'the recovered thread has observations',
      );
      await store.close();
    } finally {
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
