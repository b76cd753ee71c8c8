// The usage ledger on real SQLite (migration 003), fed through withLedger by real SDK calls to the scripted
// fake of the chat-completions protocol: totals equal the scripted usage, failures are recorded, costs estimated.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { startFakeLlmServer, reply, type FakeLlmServer, type ScriptedUsage } from '../../test/support/fake-llm-server.ts';
import { SqliteUsageLedger } from '../store/sqlite/usage.ts';
import { createGroqProvider } from './groq.ts';
import { createOpenAiCompatibleProvider } from './openai-compatible.ts';
import { withResilience } from './resilience.ts';
import { withLedger } from './ledger.ts';
import { generateObject } from './structured.ts';
import { estimateCostUsd } from './prices.ts';
import type { CompletionRequest, LlmOperation } from './ports.ts';

const MIGRATION = new URL('../../migrations/sqlite/003_usage.sql', import.meta.url);

let server: FakeLlmServer;
before(async () => {
  server = await startFakeLlmServer();
});
after(() => server.close());
beforeEach(() => assert.equal(server.pending, 0, 'previous test left scripted replies unused'));

function freshLedger(): { db: Database.Database; ledger: SqliteUsageLedger } {
  const db = new Database(':memory:');
  db.exec(readFileSync(MIGRATION, 'utf8'));
  return { db, ledger: new SqliteUsageLedger(db) };
}

const ask = (operation: LlmOperation, bankId = 'bank_a'): CompletionRequest => ({
  operation,
  bankId,
  messages: [{ role: 'user', content: `do ${operation}` }],
});

test('totals per operation and model, and the grand total, equal the sum of the scripted usage', async () => {
  const { ledger } = freshLedger();
  const groq = withLedger(createGroqProvider({ apiKey: 'k', model: 'llama-3.3-70b-versatile', baseUrl: server.groqBaseUrl }), ledger);
  const local = withLedger(createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'qwen2.5:7b' }), ledger);
  const usages: ScriptedUsage[] = [
    { prompt: 1200, completion: 300, cached: 200 },
    { prompt: 800, completion: 100, cached: 0 },
    { prompt: 500, completion: 50, cached: 100 },
    { prompt: 70, completion: 30 },
  ];
  server.script(...usages.map((u) => reply.text('ok', u)));
  await groq.complete(ask('retain'));
  await groq.complete(ask('retain'));
  await groq.complete(ask('reflect'));
  await local.complete(ask('consolidation'));

  const report = await ledger.query({ bankId: 'bank_a' });
  const sum = (pick: (u: ScriptedUsage) => number) => usages.reduce((n, u) => n + pick(u), 0);
  assert.equal(report.total.calls, 4);
  assert.equal(report.total.failures, 0);
  assert.equal(
    report.total.inputTokens,
    sum((u) => u.prompt),
  );
  assert.equal(
    report.total.outputTokens,
    sum((u) => u.completion),
  );
  assert.equal(
    report.total.cachedTokens,
    sum((u) => u.cached ?? 0),
  );

  const retain = report.groups.find((g) => g.operation === 'retain');
  assert.ok(retain);
  assert.equal(retain.provider, 'groq');
  assert.equal(retain.model, 'llama-3.3-70b-versatile');
  assert.equal(retain.calls, 2);
  assert.equal(retain.inputTokens, 2000);
  assert.equal(retain.outputTokens, 400);
  assert.equal(retain.cachedTokens, 200);
  assert.deepEqual(
    report.groups.map((g) => g.operation),
    ['consolidation', 'reflect', 'retain'],
  );

  const groqCost = usages
    .slice(0, 3)
    .reduce(
      (n, u) =>
        n + estimateCostUsd('llama-3.3-70b-versatile', { inputTokens: u.prompt, outputTokens: u.completion, cachedTokens: u.cached ?? 0 }),
      0,
    );
  assert.ok(groqCost > 0);
  assert.ok(Math.abs(report.total.costUsd - groqCost) < 1e-12, 'the local model must cost nothing');
  const consolidation = report.groups.find((g) => g.operation === 'consolidation');
  assert.equal(consolidation?.costUsd, 0);
});

test('failed calls are recorded with their error; other banks and other times are not counted', async () => {
  const { ledger } = freshLedger();
  const llm = withLedger(
    withResilience(createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm' }), { retries: 0 }),
    ledger,
  );
  server.script(
    reply.error(401, 'bad key'),
    reply.text('x', { prompt: 10, completion: 1 }),
    reply.text('y', { prompt: 99, completion: 9 }),
  );
  await assert.rejects(llm.complete(ask('reflect')));
  await llm.complete(ask('reflect'));
  await llm.complete(ask('reflect', 'bank_b'));

  const a = await ledger.query({ bankId: 'bank_a' });
  assert.equal(a.total.calls, 2);
  assert.equal(a.total.failures, 1);
  assert.equal(a.total.inputTokens, 10);
  const b = await ledger.query({ bankId: 'bank_b' });
  assert.equal(b.total.inputTokens, 99);

  const future = await ledger.query({ bankId: 'bank_a', from: new Date(Date.now() + 60_000).toISOString() });
  assert.equal(future.total.calls, 0);
  assert.deepEqual(future.groups, []);
  const past = await ledger.query({ bankId: 'bank_a', to: '2000-01-01T00:00:00Z' });
  assert.equal(past.total.calls, 0);
});

test('the failed row keeps the error text', async () => {
  const { db, ledger } = freshLedger();
  const llm = withLedger(createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'm' }), ledger);
  server.script(reply.error(403, 'forbidden model'));
  await assert.rejects(llm.complete(ask('threads')));
  const row = db.prepare('SELECT ok, error, operation, bank_id FROM llm_usage').get() as Record<string, unknown>;
  assert.equal(row.ok, 0);
  assert.match(String(row.error), /forbidden model/);
  assert.equal(row.operation, 'threads');
  assert.equal(row.bank_id, 'bank_a');
});

test('generateObject with a ledger records both attempts of a corrected reply', async () => {
  const { ledger } = freshLedger();
  const llm = createOpenAiCompatibleProvider({ baseUrl: server.openaiBaseUrl, model: 'gpt-4o-mini' });
  server.script(reply.text('not json', { prompt: 40, completion: 3 }), reply.json({ ok: true }, { prompt: 60, completion: 4, cached: 32 }));
  const result = await generateObject(llm, { ...ask('consolidation'), schemaName: 'ok' }, z.object({ ok: z.boolean() }), { ledger });
  const report = await ledger.query({ bankId: 'bank_a' });
  assert.equal(report.total.calls, 2);
  assert.equal(report.total.inputTokens, result.usage.inputTokens);
  assert.equal(report.total.cachedTokens, 32);
  assert.ok(report.total.costUsd > 0);
});

test('cost estimate: cached input at the cached price, dated model names, unknown models free', () => {
  const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cachedTokens: 500_000 };
  assert.ok(Math.abs(estimateCostUsd('gpt-4o-mini', usage) - (0.5 * 0.15 + 0.5 * 0.075 + 0.6)) < 1e-12);
  assert.equal(estimateCostUsd('gpt-4o-mini-2024-07-18', usage), estimateCostUsd('gpt-4o-mini', usage));
  assert.equal(estimateCostUsd('llama3.2:3b', usage), 0);
});
