// The long-message recall path with a transformer embedder configured instead of GloVe: the model fixture (real
// tokenizer, random weights) proves the code path only, never quality. Retain of markup, code and headings, then a
// recall with every arm, the passage grouping, standing statements and the change pairs must all run on its vectors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MODEL_FIXTURES_DIR } from './support/embed.ts';
import { startServer, type TestServer } from './support/server.ts';

type Recall = {
  results: Array<{ id: string; text: string; change?: { kind: string } }>;
  passages: Array<{ text: string; results: unknown[] }>;
  trace: { arms: Record<string, { count: number; error?: string }> };
};

describe('long-message recall with a transformer embedder (fixture weights)', () => {
  let s: TestServer;

  before(async () => {
    s = await startServer({ env: { CAIRN_EMBEDDER: 'tiny-random-embed', CAIRN_MODELS_DIR: MODEL_FIXTURES_DIR } });
    assert.equal((await s.call('POST', '/v1/banks', { id: 'tx' })).status, 201);
    const items = [
      { content: 'Always include a code example when I ask about async error handling.', at: '2024-03-01' },
      {
        content:
          '## Nightly build\n\nThe nightly build takes 25 minutes on the shared CI runner.\n\n```bash\nnpm run build -- --profile\n```',
        at: '2024-03-02',
      },
      { content: 'The nightly build takes 40 minutes on the shared CI runner now. We upgraded to `webpack@5.90`.', at: '2024-03-20' },
    ];
    for (const it of items) {
      const r = await s.call('POST', '/v1/banks/tx/memories', {
        items: [{ content: it.content, speaker: 'user', timestamp: `${it.at}T10:00:00Z` }],
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
  });
  after(async () => s.close());

  test('every arm runs on the model vectors, with passages, standing statements and change pairs', async () => {
    const r = await s.call<Recall>('POST', '/v1/banks/tx/recall', {
      query: 'How long does the nightly build take on the shared CI runner?',
      trace: true,
      group: 'source',
      limit: 10,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const bank = await s.call<{ embedder: string | null }>('GET', '/v1/banks/tx');
    assert.equal(bank.body.embedder, 'transformers:tiny-random-embed', 'the bank holds the model vectors');
    for (const [arm, t] of Object.entries(r.body.trace.arms)) assert.equal(t.error, undefined, `${arm}: ${t.error}`);
    assert.ok(r.body.trace.arms.semantic.count > 0, 'the semantic arm searched the model vectors');
    assert.ok(
      r.body.results.some((x) => x.change?.kind === 'update'),
      'the two build times pair',
    );
    assert.ok(
      r.body.passages.some((p) => p.text.includes('## Nightly build')),
      'whole passages come back',
    );
  });
});
