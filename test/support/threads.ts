// Shared by thread-memory tests: a real Cairn (embedded store in a temp dir, offline GloVe embedder) with the
// thread routes mounted behind a real HTTP server on 127.0.0.1, a JSON client, an SSE reader, and a local
// OpenAI-compatible chat server whose replies a test scripts (no network, no model).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/api/app.ts';
import { coreRoutes } from '../../src/api/routes/index.ts';
import { listen } from './http.ts';
import { threadRoutes } from '../../src/api/routes/threads.ts';
import { compose } from '../../src/compose.ts';
import { loadConfig } from '../../src/config/index.ts';
import { TEST_CACHE_DIR } from './embed.ts';
import type { Engine } from '../../src/engine.ts';
import { createOpenAiCompatibleProvider } from '../../src/llm/openai-compatible.ts';
import type { LlmProvider } from '../../src/llm/ports.ts';
import { SqliteStore } from '../../src/store/sqlite/store.ts';
import { ThreadMemory } from '../../src/threads/memory.ts';
import type { MemoryEvent } from '../../src/threads/types.ts';

export interface ThreadTestServer {
  url: string;
  engine: Engine;
  memory: ThreadMemory;
  dataDir: string;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export interface ThreadServerOptions {
  /** The LLM every bank's thread memory may use (default none: offline). */
  llm?: LlmProvider | null;
  /** Wire the bridge to engine.retain (default true). */
  bridge?: boolean;
}

export async function startThreadServer(options: ThreadServerOptions = {}): Promise<ThreadTestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-threads-'));
  const { engine, store, threadStore } = await compose(
    loadConfig({ CAIRN_CACHE_DIR: TEST_CACHE_DIR, CAIRN_DATA_DIR: dataDir, CAIRN_LOG_LEVEL: 'warn' }),
  );
  if (!(store instanceof SqliteStore)) throw new Error('thread tests need the embedded SQLite store');
  const memory = new ThreadMemory({
    store: threadStore,
    banks: store,
    llmFor: () => options.llm ?? null,
    bridge:
      options.bridge === false
        ? undefined
        : async (bankId, items) => {
            await engine.retain(bankId, { items, documentMode: 'append' });
          },
  });
  const app = createApp(engine, { routes: [...coreRoutes(engine), threadRoutes({ memory, heartbeatSeconds: 1 })] });
  const http = await listen(app);
  return {
    url: http.url,
    engine,
    memory,
    dataDir,
    call: http.call,
    async close() {
      await memory.idle();
      await http.close();
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads a Server-Sent Events stream into memory events until stopped. */
export function readEvents(url: string): { events: MemoryEvent[]; ready: Promise<void>; stop: () => void } {
  const events: MemoryEvent[] = [];
  const controller = new AbortController();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  void (async () => {
    try {
      const res = await fetch(url, { signal: controller.signal, headers: { accept: 'text/event-stream' } });
      markReady();
      if (!res.body) return;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) events.push(JSON.parse(data) as MemoryEvent);
        }
      }
    } catch {
      markReady();
    }
  })();
  return { events, ready, stop: () => controller.abort() };
}

export interface ChatRequestBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string; json_schema?: { name: string } };
}

/** What the fake server answers: the assistant's text, an HTTP error, or null to never answer. */
export type FakeReply = string | { status: number; error: string } | null;

export interface FakeLlm {
  url: string;
  requests: ChatRequestBody[];
  provider: LlmProvider;
  close(): Promise<void>;
}

/**
 * A local chat-completions server. `reply` returns the assistant text for a request, an HTTP error, or null to
 * never answer (the connection stays open, as with a model that hangs).
 */
export async function startFakeLlm(reply: (body: ChatRequestBody) => FakeReply | Promise<FakeReply>): Promise<FakeLlm> {
  const requests: ChatRequestBody[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', async () => {
      const body = JSON.parse(raw) as ChatRequestBody;
      requests.push(body);
      const text = await reply(body);
      if (text === null) return;
      if (typeof text !== 'string') {
        res.writeHead(text.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: text.error, type: 'server_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    requests,
    provider: createOpenAiCompatibleProvider({ baseUrl: url, model: 'fake-model' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
