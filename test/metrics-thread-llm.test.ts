// In the default configuration consolidation runs on its own thread, which composes its own engine: its LLM
// calls (against a SCRIPTED FAKE of the OpenAI wire protocol) must still reach the API process's /metrics.
import { test } from 'node:test';
import { reply, startFakeLlmServer } from './support/fake-llm-server.ts';
import { until } from './support/poll.ts';
import { startServer } from './support/server.ts';

test("the consolidation thread's LLM calls are counted in the API process's /metrics", async () => {
  const llm = await startFakeLlmServer({ otherwise: () => reply.json({ decisions: [] }, { prompt: 100, completion: 10 }) });
  const server = await startServer({
    env: {
      CAIRN_WORKER: 'on',
      CAIRN_CONSOLIDATION_LLM_BASE_URL: llm.openaiBaseUrl,
      CAIRN_CONSOLIDATION_LLM_MODEL: 'scripted-model',
      CAIRN_CONSOLIDATION_LLM_MAX_RETRIES: '0',
    },
  });
  try {
    await server.call('POST', '/v1/banks', { id: 'threaded' });
    await server.call('POST', '/v1/banks/threaded/memories', { items: [{ content: 'Omar repaired the old radio in the garage.' }] });
    const series = /cairn_llm_calls_total\{provider="[^"]+",operation="consolidation",outcome="ok"\} (\d+)/;
    // Every call the fake received is counted, once (read until the two agree: a call may be in flight).
    await until(
      'consolidation LLM calls in /metrics',
      async () => ({
        counted: Number(series.exec(await fetch(`${server.url}/metrics`).then((r) => r.text()))?.[1] ?? 0),
        made: llm.requests.length,
      }),
      ({ counted, made }) => counted >= 1 && counted === made,
      60_000,
    );
  } finally {
    await server.close();
    await llm.close();
  }
});
